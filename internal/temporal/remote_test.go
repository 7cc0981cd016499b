package temporal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/workspace"
)

// twoClones routes a run's commands between two workers in clones of their
// own that share a git remote, so that every piece of work meets another
// worker's: merges, spot-checks and the reading of the verifier's report on
// A; agent sessions on B, and each resolver and verifier on the other
// worker from the one before it.
type twoClones struct {
	ws [2]*runner.Worker

	mu       sync.Mutex
	sessions map[[2]string]int // plan, attempt → the worker of its session
	roles    int               // the resolvers and verifiers started so far
	log      []string
}

func (r *twoClones) Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	key := [2]string{c.Plan, fmt.Sprint(c.Attempt)}
	r.mu.Lock()
	i := 0
	switch c.Type {
	case phase.CmdStartAgent:
		i = 1
		r.sessions[key] = i
	case phase.CmdSend, phase.CmdPermission:
		i = r.sessions[key]
	}
	r.log = append(r.log, fmt.Sprintf("%s %s %s on %c", c.Type, c.Plan, c.Role, 'A'+i))
	r.mu.Unlock()
	return r.ws[i].Execute(ctx, c, since, snap, emit)
}

func (r *twoClones) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.log, "\n")
}

// conflictingPlan is a plan that says it writes src/pNN.go but writes
// src/shared.go, as its sibling does: the scheduler runs both at once and
// their merges conflict.
func conflictingPlan(num string) string {
	return fmt.Sprintf(`---
phase: 01-lib
plan: %s
type: execute
wave: 1
depends_on: []
files_modified: [src/p%s.go]
autonomous: true
---
<objective>Plan %s of the library</objective>
<tasks>
<task type="auto"><name>Task 1: write src/shared.go</name><files>src/shared.go</files><action>write</action><done>written</done></task>
</tasks>
`, num, num, num)
}

// TestRemoteWorkersResolveAndVerify runs, on a real Temporal server, a
// phase whose two plans conflict, with workers in two clones that share a
// bare repository: the conflict found by a merge on one worker is resolved
// by a resolver agent (the sim as comb) on the other, and the merge made
// again on the first; the verifier's report, written on one worker, is
// read on the other. The remote's integration branch ends with both plans'
// work and the report; merged plans leave no worktree on either worker.
func TestRemoteWorkersResolveAndVerify(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@hive.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@hive.invalid"} {
		t.Setenv(k, v)
	}
	tmp := t.TempDir()
	gitIn := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	src := filepath.Join(tmp, "src")
	for name, body := range map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": conflictingPlan("01"),
		".planning/phases/01-lib/01-02-PLAN.md": conflictingPlan("02"),
		"src/shared.go":                         "package lib\n",
	} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(tmp, "init", "-q", "-b", "main", src)
	gitIn(src, "add", "-A")
	gitIn(src, "commit", "-q", "-m", "initial")
	bare := filepath.Join(tmp, "remote.git")
	gitIn(tmp, "clone", "-q", "--bare", src, bare)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sim := adapter.Sim{Bin: self, Env: []string{asSim + "=1"}}
	options := func(name string) runner.Options {
		t.Helper()
		dir := filepath.Join(tmp, name)
		gitIn(tmp, "clone", "-q", bare, dir)
		repo, err := gitx.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		ph, err := load.Phase(dir, ".planning/phases/01-lib")
		if err != nil {
			t.Fatal(err)
		}
		return runner.Options{Repo: repo, Phase: ph,
			Schedule: runner.Schedule{MaxConcurrent: 2, Dynamic: true, Verify: true},
			Agents: runner.Agents{Launcher: sim, Stall: time.Minute,
				Roles: map[string]agent.Launcher{"comb": sim, "verifier": sim}},
			Git: integration.Git{Remote: "origin", Worktrees: true, WorktreeRoot: filepath.Join(tmp, name+"-worktrees")}}
	}
	a, b := options("a"), options("b")
	spec, err := runner.PhaseSpec(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Resolver || !spec.Verifier {
		t.Fatalf("a run of workers on a git remote has no resolver (%v) or verifier (%v)", spec.Resolver, spec.Verifier)
	}
	route := &twoClones{sessions: map[[2]string]int{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the commands and their workers:\n%s", route)
		}
	})
	closed := false
	for i, o := range []runner.Options{a, b} {
		w, err := runner.NewWorker(o)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if !closed {
				w.Close()
			}
		}()
		route.ws[i] = w
	}
	c, queue := devServer(t, func(c client.Client, w worker.Worker) {
		w.RegisterActivityWithOptions((&Activities{Exec: route, Client: c}).Command, activity.RegisterOptions{Name: CommandActivity})
	})
	_, snap := dispatchRun(ctx, t, c, queue, "hive-remote-roles", 10*time.Second,
		phase.Event{Type: phase.EvRunStarted, Time: time.Now(), Spec: &spec, Attended: true})
	if snap.Outcome != phase.OutcomeComplete {
		t.Fatalf("the run ended %q (verification %+v):\n%s", snap.Outcome, snap.Verification, route)
	}
	log := route.String()
	// Whichever plan merged second conflicted: its resolver worked on B,
	// and its merge was made again on A.
	for _, want := range []string{`start-agent 01-0[12] comb on B\nmerge 01-0[12]  on A`, `start-agent verify verifier on B\nverify   on A`} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("no %q among the commands:\n%s", want, log)
		}
	}

	integ := "hive/01/integration"
	shared := gitIn(bare, "show", integ+":src/shared.go")
	if !strings.Contains(shared, "hive-sim 01-01/1") || !strings.Contains(shared, "hive-sim 01-02/1") || strings.Contains(shared, "<<<<<<<") {
		t.Errorf("src/shared.go on the remote's %s does not hold both plans' work cleanly:\n%s", integ, shared)
	}
	if report := gitIn(bare, "show", integ+":.planning/phases/01-lib/01-VERIFICATION.md"); !strings.Contains(report, "status: passed") {
		t.Errorf("the verifier's report on the remote:\n%s", report)
	}
	for _, o := range []runner.Options{a, b} {
		if left, _ := filepath.Glob(filepath.Join(o.Git.WorktreeRoot, "*", "01-0*")); len(left) > 0 {
			t.Errorf("merged plans' worktrees are left on the worker of %s: %v\n%s", o.Repo.Root, left, gitIn(o.Repo.Root, "worktree", "list"))
		}
	}

	// The run's work is delivered from a third clone; the workers, as they
	// end, leave no tree of it behind.
	starter := options("starter")
	for _, n := range workspace.DeliverRemote(ctx, starter.Repo, starter.Phase, starter.Git, snap) {
		t.Logf("delivery: %s", n)
	}
	if got := gitIn(starter.Repo.Root, "show", "HEAD:.planning/phases/01-lib/01-VERIFICATION.md"); !strings.Contains(got, "status: passed") {
		t.Errorf("the delivered branch has no verification report:\n%s", got)
	}
	closed = true
	for _, w := range route.ws {
		w.Close()
	}
	for _, o := range []runner.Options{a, b} {
		if left, _ := filepath.Glob(filepath.Join(o.Git.WorktreeRoot, "*")); len(left) > 0 {
			t.Errorf("a delivered run's trees are left on the worker of %s: %v\n%s", o.Repo.Root, left, gitIn(o.Repo.Root, "worktree", "list"))
		}
		if branches := gitIn(o.Repo.Root, "branch", "--list", "hive/*"); strings.TrimSpace(branches) != "" {
			t.Errorf("a delivered run's branches are left on the worker of %s:\n%s", o.Repo.Root, branches)
		}
	}
}
