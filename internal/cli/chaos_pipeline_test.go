package cli

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// isPipelineSeed says which chaos seeds run a hive run pipeline instead of
// a phase: one in four (7002, 7006, ...), so that `make test`'s two
// iterations hold one of each.
func isPipelineSeed(seed uint64) bool { return seed%4 == 2 }

// pipelineObjective and pipelineFaults are what every pipeline iteration
// runs: the sim tester's failing test makes a fix loop.
const (
	pipelineObjective = "add a health check endpoint"
	pipelineFaults    = "HIVE_SIM_FAULTS=tester=finds-bug"
)

// sharedGoBuilds is the GOFLAGS under which a pipeline's go builds and
// tests run: -trimpath, so that the project's packages are the same to Go's
// build cache in every iteration's folder, and a test binary is linked once
// rather than in each iteration. What hive does with a test's result is
// tested the same: a changed tree is a new build, and a cached result is
// replayed as go ran it.
func sharedGoBuilds() string {
	return "GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath")
}

// pipelineReference is an uninterrupted run of the chaos pipeline, made
// once per test process: what main holds after it, the subjects of its
// commits, and how many durable steps and journal events it took.
type pipelineReference struct {
	tree     string
	subjects []string
	steps    int
	events   int
}

var (
	pipelineRefOnce sync.Once
	pipelineRef     pipelineReference
	pipelineRefErr  error
)

func referencePipeline(t *testing.T, hive string) pipelineReference {
	pipelineRefOnce.Do(func() {
		dir := pipelineFixtureIn(t, t.TempDir())
		stepsFile := filepath.Join(t.TempDir(), "steps")
		env := append(os.Environ(), pipelineFaults, sharedGoBuilds(), "HIVE_CRASH_STEPS_FILE="+stepsFile, "XDG_CACHE_HOME="+t.TempDir())
		cmd := exec.Command(hive, "run", pipelineObjective, "--agent", "sim", "--yes", "--repo", dir)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			pipelineRefErr = fmt.Errorf("the uninterrupted run: %v\n%s", err, out)
			return
		}
		data, err := os.ReadFile(stepsFile)
		if err != nil {
			pipelineRefErr = err
			return
		}
		pipelineRef.steps, _ = strconv.Atoi(string(data))
		if pipelineRef.steps < 1 {
			pipelineRefErr = fmt.Errorf("the uninterrupted run counted %q durable steps", data)
			return
		}
		if pipelineRef.events = countEvents(filepath.Join(dir, ".hive", "runs.db")); pipelineRef.events < 1 {
			pipelineRefErr = errors.New("the uninterrupted run journaled no event")
			return
		}
		pipelineRef.tree = pipelineState(t, dir)
		pipelineRef.subjects = commitSubjects(t, dir)
	})
	if pipelineRefErr != nil {
		t.Fatal(pipelineRefErr)
	}
	return pipelineRef
}

// runNumber is how hive names a run in what it commits ("learnings of run
// 2", ".hive/runs/2/phase", "(run 2)" in CLAUDE.md). A run killed before it
// started is abandoned and the work is done by the next, so the number is
// not part of what must match an uninterrupted run.
var runNumber = regexp.MustCompile(`\b(runs? |runs/|run-)\d+`)

// pipelineState is pipelineTree with CLAUDE.md's content in lines.Place of its
// blob, run numbers left out.
func pipelineState(t *testing.T, dir string) string {
	t.Helper()
	var kept []string
	for _, line := range strings.Split(pipelineTree(t, dir), "\n") {
		if !strings.HasSuffix(line, " CLAUDE.md") {
			kept = append(kept, line)
		}
	}
	claude, _ := exec.Command("git", "-C", dir, "show", "HEAD:CLAUDE.md").Output()
	return runNumber.ReplaceAllString(strings.Join(kept, "\n")+"--- CLAUDE.md\n"+string(claude), "${1}N")
}

// commitSubjects lists the subjects of main's commits, sorted, run numbers
// left out.
func commitSubjects(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "--format=%s", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	subjects := strings.Split(runNumber.ReplaceAllString(strings.TrimSpace(string(out)), "${1}N"), "\n")
	sort.Strings(subjects)
	return subjects
}

// runChaosPipeline is one pipeline iteration: hive run is SIGKILLed up to
// three times, at a random durable step (a journal append, a git command:
// in a role's session, a merge of a plan, the delivery) or at a random
// journal event (while agents work), then resumed until the run ends. The
// run must end complete, main must hold the tree an uninterrupted run
// leaves and the same commits, none twice (nothing lost, nothing
// repeated), and no agent process or run branch may be left.
func runChaosPipeline(t *testing.T, seed uint64) map[string]int {
	rng := rand.New(rand.NewPCG(seed, 0x919E))
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatal(err)
	}
	ref := referencePipeline(t, hive)
	injected := map[string]int{"pipeline": 1}
	dir := pipelineFixtureIn(t, t.TempDir())
	cache := t.TempDir()
	dbPath := filepath.Join(dir, ".hive", "runs.db") // hive run's journal
	var logs strings.Builder
	args := []string{"run", pipelineObjective, "--agent", "sim", "--yes", "--repo", dir}
	done := false
	for attempt := 0; attempt < 8 && !done; attempt++ {
		disruption := "none"
		switch {
		case attempt == 0: // the first run is always killed
			disruption = []string{"step", "step", "event"}[rng.IntN(3)]
		case attempt < 3:
			disruption = []string{"none", "step", "event"}[rng.IntN(3)]
		}
		cmd := exec.Command(hive, args...)
		cmd.Env = append(os.Environ(), pipelineFaults, sharedGoBuilds(), "XDG_CACHE_HOME="+cache)
		if disruption == "step" {
			cmd.Env = append(cmd.Env, "HIVE_CRASH_STEP="+strconv.Itoa(1+rng.IntN(ref.steps)))
		}
		killAt := 0
		if disruption == "event" {
			killAt = countEvents(dbPath) + 1 + rng.IntN(ref.events)
		}
		out, code, killed := runDisrupted(t, cmd, dbPath, killAt)
		fmt.Fprintf(&logs, "--- %s (%s): exit %d\n%s\n", strings.Join(args[:2], " "), disruption, code, tail(out, 30))
		switch {
		case code == 0:
			done = true
		case killed || (disruption == "step" && code == -1):
			injected["pipeline-sigkill-"+disruption]++
		case args[1] == "--resume" && strings.Contains(out, "no unfinished hive run"):
			// Killed before the run was recorded, or after it was
			// recorded finished: the work is on main, or a new run
			// starts.
			if pipelineState(t, dir) == ref.tree {
				done = true
			}
			args = []string{"run", pipelineObjective, "--agent", "sim", "--yes", "--repo", dir}
			continue
		default:
			t.Fatalf("seed %d: %s exited %d:\n%s\n--- the last run whole:\n%s", seed, strings.Join(args[:2], " "), code, logs.String(), out)
		}
		args = []string{"run", "--resume", "--agent", "sim", "--repo", dir}
	}
	if !done {
		t.Fatalf("seed %d: the run did not complete after 8 runs:\n%s", seed, logs.String())
	}
	if got := pipelineState(t, dir); got != ref.tree {
		t.Fatalf("seed %d: main differs from an uninterrupted run's:\n%s\nwant:\n%s\n%s", seed, got, ref.tree, logs.String())
	}
	if got := commitSubjects(t, dir); strings.Join(got, "\n") != strings.Join(ref.subjects, "\n") {
		t.Fatalf("seed %d: main's commits differ from an uninterrupted run's (lost or repeated work):\n%s\nwant:\n%s\n%s",
			seed, strings.Join(got, "\n"), strings.Join(ref.subjects, "\n"), logs.String())
	}
	if b, _ := exec.Command("git", "-C", dir, "branch", "--list", "hive/*").Output(); strings.TrimSpace(string(b)) != "" {
		t.Fatalf("seed %d: branches left: %s\n%s", seed, b, logs.String())
	}
	checkNoAgentsLeft(t, dir, cache)
	return injected
}
