package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipelineFixture is a small Go service, committed on main.
func pipelineFixture(t *testing.T) string {
	t.Helper()
	return pipelineFixtureIn(t, t.TempDir())
}

// pipelineFixtureIn writes the fixture in dir, an empty folder.
func pipelineFixtureIn(t *testing.T, dir string) string {
	t.Helper()
	for name, body := range map[string]string{
		"go.mod":       "module example.com/svc\n\ngo 1.22\n",
		"main.go":      "package main\n\nfunc main() {}\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestRuns(t *testing.T) {}\n",
		"README.md":    "# svc\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Hive Test"},
		{"config", "user.email", "hive@example.invalid"}, {"config", "commit.gpgsign", "false"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// learningRun is a run's number in CLAUDE.md's Hive Learnings ("(run 2).",
// "(3 runs, last 4)."): a run killed before it began is abandoned, and
// the one after it has the next number.
var learningRun = regexp.MustCompile(`(run|last) [0-9]+\)`)

// pipelineTree is what a run left on main: every path, and the content
// of every file outside .planning (whose SUMMARY files carry times), with
// the run numbers CLAUDE.md names left out.
func pipelineTree(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, path, _ := strings.Cut(line, "\t")
		if strings.HasPrefix(path, ".planning/") {
			b.WriteString(path + "\n")
			continue
		}
		if path == "CLAUDE.md" {
			text, err := exec.Command("git", "-C", dir, "show", "HEAD:CLAUDE.md").Output()
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(path + ":\n" + learningRun.ReplaceAllString(string(text), "$1 N)") + "\n")
			continue
		}
		b.WriteString(meta + " " + path + "\n")
	}
	return b.String()
}

// TestPipelineKills SIGKILLs hive run at a random durable step (a journal
// append, a git command, a crash point of the phase run), then resumes it
// until it ends: every run must end complete, with main holding the same
// tree as an uninterrupted run, and no run branch left. The run has a fix
// loop (the sim tester's failing test). `make test` kills at 6 steps spread
// evenly over the run; HIVE_PIPELINE_KILLS sets a count of random steps
// instead ("all" kills at every step in turn, as `make crashpoints` does;
// "N-M" at steps N to M). The kills run in parallel (go test -parallel).
func TestPipelineKills(t *testing.T) {
	needFaults(t)
	t.Parallel() // one pool with the package's other long tests (TestMain)
	iterations, from := 6, 0
	spread := os.Getenv("HIVE_PIPELINE_KILLS") == ""
	if s := os.Getenv("HIVE_PIPELINE_KILLS"); s != "" && s != "all" {
		lo, hi, isRange := strings.Cut(s, "-")
		var err error
		if iterations, err = strconv.Atoi(lo); err != nil {
			t.Fatal(err)
		}
		if isRange {
			n, err := strconv.Atoi(hi)
			if err != nil || n < iterations {
				t.Fatalf("HIVE_PIPELINE_KILLS=%s: want N-M with N ≤ M", s)
			}
			from, iterations = iterations, n-iterations+1
		}
	}
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	const objective = "add a health check endpoint"
	faults := "HIVE_SIM_FAULTS=tester=finds-bug"
	run := func(dir string, env []string, args ...string) (int, string) {
		// A hung hive fails the test instead of holding it until its timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, hive, append(args, "--repo", dir)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("hive %s hung:\n%s", strings.Join(args, " "), out)
		}
		var exited *exec.ExitError
		if errors.As(err, &exited) {
			return exited.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	ref := pipelineFixture(t)
	stepsFile := filepath.Join(t.TempDir(), "steps")
	if code, out := run(ref, []string{faults, "HIVE_CRASH_STEPS_FILE=" + stepsFile}, "run", objective, "--agent", "sim", "--yes"); code != 0 {
		t.Fatalf("the uninterrupted run: exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(stepsFile)
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := strconv.Atoi(string(data))
	want := pipelineTree(t, ref)
	t.Logf("an uninterrupted run takes %d durable steps", steps)
	if os.Getenv("HIVE_PIPELINE_KILLS") == "all" {
		iterations = steps
	}
	rng := rand.New(rand.NewPCG(2026, 1124))
	for i := range iterations {
		k := 1 + rng.IntN(steps)
		switch {
		case spread:
			k = 1 + (steps-1)*i/max(iterations-1, 1)
		case os.Getenv("HIVE_PIPELINE_KILLS") == "all":
			k = i + 1
		case from > 0:
			k = from + i
		}
		t.Run(fmt.Sprintf("kill-at-%d", k), func(t *testing.T) {
			t.Parallel()
			dir := pipelineFixture(t)
			code, out := run(dir, []string{faults, "HIVE_CRASH_STEP=" + strconv.Itoa(k)}, "run", objective, "--agent", "sim", "--yes")
			log := []string{fmt.Sprintf("killed run: exit %d\n%s", code, out)}
			for tries := 0; code != 0; tries++ {
				if tries == 5 {
					t.Fatalf("not complete after 5 resumes:\n%s", strings.Join(log, "\n"))
				}
				code, out = run(dir, []string{faults}, "run", "--resume", "--agent", "sim")
				log = append(log, fmt.Sprintf("resume: exit %d\n%s", code, out))
				if code != 0 && strings.Contains(out, "no unfinished hive run") {
					// Killed before the run existed, or after it was recorded finished.
					if pipelineTree(t, dir) == want {
						break
					}
					code, out = run(dir, []string{faults}, "run", objective, "--agent", "sim", "--yes")
					log = append(log, fmt.Sprintf("new run: exit %d\n%s", code, out))
				}
			}
			t.Logf("killed at step %d: %d resume(s)", k, len(log)-1)
			if len(log) == 1 && code == 0 && !strings.Contains(log[0], "run 1 complete") {
				t.Fatalf("the first run exited 0 without completing:\n%s", log[0])
			}
			if got := pipelineTree(t, dir); got != want {
				t.Fatalf("main differs from an uninterrupted run's:\n%s\nwant:\n%s\n%s", got, want, strings.Join(log, "\n"))
			}
			if b, _ := exec.Command("git", "-C", dir, "branch", "--list", "hive/*").Output(); strings.TrimSpace(string(b)) != "" {
				t.Fatalf("branches left: %s", b)
			}
		})
	}
}
