package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

// TestMain lets the test binary play the sim agent (`hive __sim`), so the
// worktree tests drive real agent processes that write files and commit.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__sim" {
		os.Exit(sim.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

// dirRecorder is a sim Launcher that remembers where each agent ran and
// how many ran at once.
type dirRecorder struct {
	adapter.Sim
	mu      sync.Mutex
	dirs    map[string]string // plan → folder of its first agent
	running int
	peak    int
}

func (d *dirRecorder) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	d.mu.Lock()
	if d.dirs == nil {
		d.dirs = map[string]string{}
	}
	if _, ok := d.dirs[spec.Plan]; !ok {
		d.dirs[spec.Plan] = spec.Dir
	}
	d.running++
	d.peak = max(d.peak, d.running)
	d.mu.Unlock()
	s, err := d.Sim.Start(ctx, spec, sink)
	if err != nil {
		return nil, err
	}
	go func() {
		<-s.Done()
		d.mu.Lock()
		d.running--
		d.mu.Unlock()
	}()
	return s, nil
}

func simLauncher(t *testing.T, env ...string) *dirRecorder {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &dirRecorder{Sim: adapter.Sim{Bin: self, Env: append([]string{"HIVE_SIM_DELAY=20ms"}, env...)}}
}

// worktreeOptions runs phase 01-lib of root in worktree mode with the sim.
func worktreeOptions(t *testing.T, root string, l agent.Launcher, obs Observer) Options {
	t.Helper()
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-lib")
	o := options(t, root, ph, journaltest.NewMemory(), l, obs)
	o.Git.Worktrees = true
	o.Git.WorktreeRoot = filepath.Join(t.TempDir(), "worktrees")
	o.Agents.Team = true
	o.Agents.Stall = time.Minute
	return o
}

// Eight plans in three waves, four at a time, each in its own worktree:
// every plan is merged once, in a merge commit whose STATE.md counts it,
// no SUMMARY is lost, and only the main worktree is left.
func TestWorktreesEightPlans(t *testing.T) {
	files := map[string]string{
		".planning/STATE.md":   "# Project State\n\n## Current Position\n\nPhase: 1 of 1 (Lib)\nPlan: 0 of 8 in current phase\nStatus: Ready\n",
		".planning/ROADMAP.md": "# Roadmap\n\nPlans:\n",
	}
	waves := map[string]int{"01": 1, "02": 1, "03": 1, "04": 1, "05": 2, "06": 2, "07": 2, "08": 3}
	deps := map[string][]string{"05": {"01-01", "01-02"}, "06": {"01-03"}, "07": {"01-04"}, "08": {"01-05", "01-06", "01-07"}}
	for num, w := range waves {
		files[".planning/phases/01-lib/01-"+num+"-PLAN.md"] = runnertest.WtPlan(num, w, deps[num], []string{"src/p" + num + ".go"}, "")
		files[".planning/ROADMAP.md"] += "- [ ] 01-" + num + "-PLAN.md — plan " + num + "\n"
	}
	root := gittest.NewRepo(t, files)
	l := simLauncher(t)
	o := worktreeOptions(t, root, l, &recorder{})
	o.Schedule.MaxConcurrent = 4
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q", err, res.Snapshot.Outcome)
	}
	if l.peak != 4 {
		t.Errorf("at most %d agents ran at once, want 4", l.peak)
	}
	seen := map[string]string{}
	for id, dir := range l.dirs {
		if dir == root || !strings.HasPrefix(dir, o.Git.WorktreeRoot) {
			t.Errorf("plan %s ran in %s, not in a worktree of its own", id, dir)
		}
		if other, dup := seen[dir]; dup {
			t.Errorf("plans %s and %s shared %s", id, other, dir)
		}
		seen[dir] = id
	}
	// One merge per plan, each carrying STATE.md with one more plan done.
	merges := strings.Split(strings.TrimSpace(gittest.Output(t, root, "log", "--merges", "--reverse", "--format=%H %s")), "\n")
	if len(merges) != 8 {
		t.Fatalf("%d merge commits, want 8:\n%s", len(merges), strings.Join(merges, "\n"))
	}
	merged := map[string]int{}
	for i, m := range merges {
		hash, subject, _ := strings.Cut(m, " ")
		id := regexp.MustCompile(`plan (\S+)`).FindStringSubmatch(subject)[1]
		merged[id]++
		state := gittest.Output(t, root, "show", hash+":.planning/STATE.md")
		if want := fmt.Sprintf("completed_plans: %d\n", i+1); !strings.Contains(state, want) {
			t.Errorf("STATE.md of merge %d (%s) lacks %q:\n%s", i+1, id, want, state)
		}
		// No SUMMARY of an earlier plan is missing after any merge.
		tree := gittest.Output(t, root, "ls-tree", "-r", "--name-only", hash, ".planning/phases/01-lib/")
		if n := strings.Count(tree, "-SUMMARY.md"); n != i+1 {
			t.Errorf("after merge %d there are %d SUMMARY files, want %d", i+1, n, i+1)
		}
	}
	for num := range waves {
		if merged["01-"+num] != 1 {
			t.Errorf("plan 01-%s merged %d times", num, merged["01-"+num])
		}
	}
	roadmap, _ := os.ReadFile(filepath.Join(root, ".planning/ROADMAP.md"))
	if strings.Count(string(roadmap), "- [x] 01-") != 8 {
		t.Errorf("ROADMAP.md does not tick the 8 plans:\n%s", roadmap)
	}
	if wts := strings.TrimSpace(gittest.Output(t, root, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", wts)
	}
	if b := strings.TrimSpace(gittest.Output(t, root, "branch", "--list", "hive/*")); b != "" {
		t.Errorf("branches left: %s", b)
	}
}

// conflictRepo makes two parallel plans that write the same lines of one
// file, which neither declares (agents stray beyond files_modified).
func conflictRepo(t *testing.T) string {
	straying := func(num string) string {
		return strings.Replace(runnertest.WtPlan(num, 1, nil, []string{"src/shared.go"}, ""), "files_modified: [src/shared.go]", "files_modified: [src/p"+num+".go]", 1)
	}
	return gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": straying("01"),
		".planning/phases/01-lib/01-02-PLAN.md": straying("02"),
	})
}

func checkBothSides(t *testing.T, root string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "src/shared.go"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.Contains(text, "hive-sim 01-01/1") || !strings.Contains(text, "hive-sim 01-02/1") || strings.Contains(text, "<<<<<<<") {
		t.Errorf("src/shared.go does not hold both plans' work cleanly:\n%s", text)
	}
}

// Two plans edit the same lines: the resolver role (the sim as comb)
// resolves the conflict and the plan is merged.
func TestWorktreeConflictResolver(t *testing.T) {
	root := conflictRepo(t)
	l := simLauncher(t)
	obs := &recorder{}
	o := worktreeOptions(t, root, l, obs)
	o.Agents.Roles = map[string]agent.Launcher{"comb": l}
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs)
	}
	if !strings.Contains(obs.String(), "merge conflict: a resolver agent works on src/shared.go") {
		t.Errorf("no resolver was started:\n%s", obs)
	}
	checkBothSides(t, root)
}

// The resolver gives up: a merge-conflict checkpoint asks the human, who
// resolves the files by hand in the plan's worktree and answers done.
func TestWorktreeConflictHuman(t *testing.T) {
	root := conflictRepo(t)
	l := simLauncher(t, "HIVE_SIM_FAULTS=01-01=comb-fail,01-02=comb-fail")
	obs := &humanResolver{t: t, answers: make(chan Answer, 1)}
	o := worktreeOptions(t, root, l, obs)
	o.Agents.Roles = map[string]agent.Launcher{"comb": l}
	o.Human.Interactive = true
	o.Human.Answers = obs.answers
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs.String())
	}
	if obs.resolved != 1 {
		t.Errorf("%d conflicts resolved by hand, want 1", obs.resolved)
	}
	checkBothSides(t, root)
}

// humanResolver plays the human at a merge-conflict checkpoint: it edits
// the conflicting files in the plan's worktree, commits, and answers done.
type humanResolver struct {
	recorder
	t        *testing.T
	answers  chan Answer
	resolved int
}

func (h *humanResolver) Command(c phase.Command, s phase.Snapshot) {
	h.recorder.Command(c, s)
	if c.Type != phase.CmdCheckpointOpened || c.Checkpoint.Kind != phase.KindMerge {
		return
	}
	dir := regexp.MustCompile(`resolve them in ([^;)]+)`).FindStringSubmatch(c.Checkpoint.Details)
	if dir == nil {
		h.t.Errorf("the checkpoint does not say where to resolve: %s", c.Checkpoint.Details)
		h.answers <- Answer{Plan: c.Plan, Text: "abort"}
		return
	}
	for _, f := range []string{"src/shared.go"} {
		p := filepath.Join(dir[1], f)
		data, err := os.ReadFile(p)
		if err != nil {
			h.t.Fatal(err)
		}
		var keep []string
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "<<<<<<<") && !strings.HasPrefix(line, ">>>>>>>") && line != "=======" {
				keep = append(keep, line)
			}
		}
		os.WriteFile(p, []byte(strings.Join(keep, "\n")), 0o644)
		gittest.Output(h.t, dir[1], "add", f)
	}
	gittest.Output(h.t, dir[1], "commit", "-q", "--no-edit")
	h.resolved++
	h.answers <- Answer{Plan: c.Plan, Text: "done"}
}

// Twenty plans at once, each creating its worktree: no lock error.
func TestTwentyWorktreesAtOnce(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= 20; i++ {
		num := fmt.Sprintf("%02d", i)
		files[".planning/phases/01-lib/01-"+num+"-PLAN.md"] = runnertest.WtPlan(num, 1, nil, []string{"src/p" + num + ".go"}, "")
	}
	root := gittest.NewRepo(t, files)
	l := simLauncher(t)
	obs := &recorder{}
	o := worktreeOptions(t, root, l, obs)
	o.Schedule.MaxConcurrent = 20
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs)
	}
	if l.peak < 10 {
		t.Errorf("only %d agents ran at once", l.peak)
	}
	if strings.Contains(obs.String(), "lock") {
		t.Errorf("a lock error was reported:\n%s", obs)
	}
	dirs := map[string]bool{}
	for _, d := range l.dirs {
		dirs[d] = true
	}
	if len(dirs) != 20 {
		t.Errorf("%d distinct worktrees, want 20", len(dirs))
	}
}

// A plan whose must_haves artifact no task writes fails the phase
// verification, which names the artifact.
func TestVerificationMissingArtifact(t *testing.T) {
	must := "must_haves:\n  artifacts:\n    - path: src/p01.go\n      contains: \"func Ready\"\n    - path: src/missing.go\n      provides: the parser\n"
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, must),
	})
	l := simLauncher(t)
	o := worktreeOptions(t, root, l, &recorder{})
	o.Schedule.Verify = true
	o.Agents.Roles = map[string]agent.Launcher{"verifier": l}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Snapshot.Verification
	if res.Snapshot.Outcome != phase.OutcomeGaps || v == nil || !strings.Contains(v.Details, "01-01: artifact src/missing.go is missing") {
		t.Fatalf("outcome %q, verification %+v", res.Snapshot.Outcome, v)
	}
	if strings.Contains(v.Details, "func Ready") {
		t.Errorf("the artifact the sim wrote was reported: %s", v.Details)
	}
	if !strings.Contains(v.Details, "/gsd:plan-phase 01 --gaps") {
		t.Errorf("no command to plan the gaps: %s", v.Details)
	}
}

// With every must_have in place, the verifier role writes the report and
// ROADMAP.md marks the phase complete.
func TestVerificationPassed(t *testing.T) {
	must := "must_haves:\n  artifacts:\n    - path: src/p01.go\n      contains: \"func Ready\"\n  key_links:\n    - from: src/p01.go\n      to: src/p02.go\n      pattern: \"Ready\\\\(\"\n"
	root := gittest.NewRepo(t, map[string]string{
		".planning/ROADMAP.md":                  "# Roadmap\n\n- [ ] **Phase 1: Lib** - the library\n\n| Phase | Plans Complete | Status | Completed |\n|---|---|---|---|\n| 1. Lib | 0/1 | Not started | - |\n",
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, must),
	})
	l := simLauncher(t)
	o := worktreeOptions(t, root, l, &recorder{})
	o.Schedule.Verify = true
	o.Agents.Roles = map[string]agent.Launcher{"verifier": l}
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q, verification %+v", err, res.Snapshot.Outcome, res.Snapshot.Verification)
	}
	report, err := os.ReadFile(filepath.Join(root, ".planning/phases/01-lib/01-VERIFICATION.md"))
	if err != nil || !strings.Contains(string(report), "status: passed") {
		t.Errorf("report: %v\n%s", err, report)
	}
	roadmap, _ := os.ReadFile(filepath.Join(root, ".planning/ROADMAP.md"))
	if !strings.Contains(string(roadmap), "- [x] **Phase 1: Lib**") || !strings.Contains(string(roadmap), "| 1. Lib | 1/1 | Complete |") {
		t.Errorf("ROADMAP.md does not mark the phase complete:\n%s", roadmap)
	}
}

// A failing post-merge gate reopens the plan for two fix agents, then asks
// a human; --yes retries once more, then skips.
func TestPostMergeGateLoops(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
	})
	l := simLauncher(t)
	obs := &recorder{}
	o := worktreeOptions(t, root, l, obs)
	o.Git.GateCommand = "echo 'FAIL: TestReady' && exit 1"
	o.Human.AutoAnswer = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Snapshot.Plans[0]
	if p.State != phase.Failed || !strings.Contains(p.Reason, "post-merge gate still fails") || !strings.Contains(p.Reason, "FAIL: TestReady") {
		t.Fatalf("plan ended %s: %s", p.State, p.Reason)
	}
	// Attempts: the executor, two fix agents, one retry from --yes.
	if p.Attempt != 4 {
		t.Errorf("%d attempts, want 4\n%s", p.Attempt, obs)
	}
	log := obs.String()
	for _, want := range []string{"the post-merge gate failed (fix 1 of 2)", "the post-merge gate failed (fix 2 of 2)"} {
		if !strings.Contains(log, want) {
			t.Errorf("missing %q in\n%s", want, log)
		}
	}
}

// Uncommitted changes stop a worktree run before it starts, unless allowed.
func TestDirtyTreeRefused(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		"README.md":                             "hello\n",
	})
	os.WriteFile(filepath.Join(root, "README.md"), []byte("changed\n"), 0o644)
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "uncommitted changes") || !strings.Contains(err.Error(), "README.md") || !strings.Contains(err.Error(), "--allow-dirty") {
		t.Fatalf("Run = %v, want a refusal naming README.md", err)
	}
	o.Git.AllowDirty = true
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("with AllowDirty: %v, %q", err, res.Snapshot.Outcome)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "README.md")); string(data) != "changed\n" {
		t.Errorf("the user's change was touched: %q", data)
	}
}

// With branching_strategy "phase" the work stays on hive/phase-01 and the
// user's branch does not move; each new worktree gets the set-up hook's
// copied files and command before its agent starts.
func TestPhaseBranchAndSetupHook(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
		".gitignore":                            ".env\n",
	})
	os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=local\n"), 0o600)
	marker := filepath.Join(t.TempDir(), "setup-ran")
	rec := &recorder{}
	o := worktreeOptions(t, root, simLauncher(t), rec)
	o.Git.Branching = integration.BranchingPhase
	// The command sees the copied .env in the new worktree.
	o.Git.Setup = integration.Setup{Copy: []string{".env", "missing.txt"}, Command: "cat .env >> " + marker}
	before := gittest.Output(t, root, "rev-parse", "HEAD")
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q", err, res.Snapshot.Outcome)
	}
	if after := gittest.Output(t, root, "rev-parse", "HEAD"); after != before {
		t.Errorf("the user's branch moved: %s → %s", before, after)
	}
	log := gittest.Output(t, root, "log", "--format=%s", "hive/phase-01")
	if !strings.Contains(log, "hive: merge plan 01-01") || !strings.Contains(log, "hive: merge plan 01-02") {
		t.Errorf("hive/phase-01 lacks the merges:\n%s", log)
	}
	for _, id := range []string{"01-01", "01-02"} {
		// A set-up may take a minute (npm ci): the run says it is under way.
		if want := "note " + id + " readying its worktree (workflow.worktree_setup): cat .env >> " + marker; !strings.Contains(rec.String(), want) {
			t.Errorf("no %q among:\n%s", want, rec)
		}
	}
	if data, _ := os.ReadFile(marker); string(data) != "TOKEN=local\nTOKEN=local\n" {
		t.Errorf("the hook ran with %q, want .env once per worktree", data)
	}
	bad := integration.Setup{Copy: []string{"../outside"}}
	if err := bad.Run(context.Background(), root, t.TempDir()); err == nil || !strings.Contains(err.Error(), "worktree_setup.copy") {
		t.Errorf("a copy path outside the repository: %v", err)
	}
}

// With strategy phase the work stays on hive/phase-01, so a fresh run must
// see there which plans are done: none runs again.
func TestPhaseBranchFreshRunSeesMergedPlans(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 2, []string{"01-01"}, []string{"src/p02.go"}, ""),
	})
	l := simLauncher(t)
	o := worktreeOptions(t, root, l, &recorder{})
	o.Git.Branching = integration.BranchingPhase
	if res, err := Run(context.Background(), o); err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("first run: %v", err)
	}
	o.Schedule.Fresh = true
	l.dirs = nil
	res, err := Run(context.Background(), o)
	if err != nil || !res.NothingToDo {
		t.Fatalf("second run: %v, nothing to do %v", err, res.NothingToDo)
	}
	if len(l.dirs) != 0 {
		t.Errorf("plans ran again: %v", l.dirs)
	}
	if !strings.Contains(gittest.Output(t, root, "branch", "--list", "hive/phase-01"), "hive/phase-01") {
		t.Errorf("the phase branch, which holds the work, is gone")
	}
	// --rerun starts a run that takes every plan as done.
	o.Schedule.Rerun = true
	res, err = Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("rerun: %v, %q", err, res.Snapshot.Outcome)
	}
	for _, p := range res.Snapshot.Plans {
		if !p.Spec.Done {
			t.Errorf("%s was not seen as done", p.Spec.ID)
		}
	}
}

// A run begun in the shared tree (an older hive, or use_worktrees off) is
// resumed there even when worktrees are now on, so no plan's work is left
// on a branch nothing merges.
func TestResumeKeepsTheRunsMode(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 2, []string{"01-01"}, []string{"src/p02.go"}, ""),
	})
	obs := &recorder{}
	o := worktreeOptions(t, root, simLauncher(t, "HIVE_SIM_FAULTS=01-02=fail"), obs)
	o.Git.Worktrees = false
	o.Human.AutoAnswer = false
	o.Human.Interactive = true
	answers := make(chan Answer)
	o.Human.Answers = answers
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Stop the run once 01-02 waits at its failure: hive goes down mid-run.
		for !strings.Contains(obs.String(), "command checkpoint-opened 01-02") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := Run(ctx, o); err == nil {
		t.Fatal("the first run was not interrupted")
	}
	o.Git.Worktrees = true
	o.Agents.Launcher = simLauncher(t)
	go func() { answers <- Answer{Plan: "01-02", Text: "retry"} }()
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("resumed run: %v, %q\n%s", err, res.Snapshot.Outcome, obs)
	}
	if !strings.Contains(obs.String(), "started in the shared working tree: it goes on there") {
		t.Errorf("no note of the kept mode:\n%s", obs)
	}
	if _, err := os.Stat(filepath.Join(root, ".planning/phases/01-lib/01-02-SUMMARY.md")); err != nil {
		t.Errorf("01-02's work is not in the user's tree: %v", err)
	}
}

// A plan whose post-merge gate keeps failing ends without its work on the
// user's branch: its merge is undone on the integration branch, and
// STATE.md counts the same completed plans as the run does.
func TestGateFailedPlanDoesNotLand(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": runnertest.WtPlan("02", 2, []string{"01-01"}, []string{"src/p02.go"}, ""),
		".planning/STATE.md":                    "---\nmilestone: v1.0\n---\n# State\n",
	})
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	o.Git.GateCommand = "test ! -e src/p02.go || { echo 'FAIL: p02 breaks the build'; exit 1; }"
	o.Human.AutoAnswer = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Snapshot.Count(phase.Complete); n != 1 || res.Snapshot.Outcome != phase.OutcomeFailed {
		t.Fatalf("%d complete, outcome %s; want 1, failed\n%s", n, res.Snapshot.Outcome, o.Observer)
	}
	if _, err := os.Stat(filepath.Join(root, "src/p01.go")); err != nil {
		t.Errorf("the completed plan's work is missing on main: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "src/p02.go")); err == nil {
		t.Errorf("the gate-failed plan's work landed on main")
	}
	if _, err := os.Stat(filepath.Join(root, ".planning/phases/01-lib/01-02-SUMMARY.md")); err == nil {
		t.Errorf("the gate-failed plan's SUMMARY landed on main: a later run would take it as done")
	}
	state, _ := os.ReadFile(filepath.Join(root, ".planning/STATE.md"))
	if !strings.Contains(string(state), "completed_plans: 1\n") {
		t.Errorf("STATE.md does not count 1 completed plan:\n%s", state)
	}
	if !strings.Contains(gittest.Output(t, root, "branch", "--list", "hive/01/01-02"), "hive/01/01-02") {
		t.Errorf("the failed plan's branch is gone; it should keep the work for inspection")
	}
}
