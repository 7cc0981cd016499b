//go:build faults

package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

// TestGitCommandsPerPlan pins what a plan costs hive in git processes in
// worktree mode: its worktree, the spot-check of its claim, its merge and
// its clean-up. A phase of 6 plans and one of 3 are run; the difference,
// over 3, is one plan's share, whatever the run itself costs. Chaos runs
// thousands of plans, and every user's run pays each process (milliseconds
// of CPU each).
func TestGitCommandsPerPlan(t *testing.T) {
	// 13 measured; one more allowed for a check whose count depends on
	// timing. Before: 24 (a process for each merge-in-progress check, branch
	// look-up and key file read, to resolve a worktree's base, to ask
	// whether a plan was merged before merging it, to list the worktrees
	// before removing the plan's, and a listing per plan at the run's end).
	const want = 14
	var commands atomic.Int64
	gitx.AfterCommand = func() { commands.Add(1) }
	defer func() { gitx.AfterCommand = nil }()
	runPhase := func(n int) int64 {
		files := map[string]string{
			".planning/STATE.md":   "# Project State\n\n## Current Position\n\nPhase: 1 of 1 (Lib)\nStatus: Ready\n",
			".planning/ROADMAP.md": "# Roadmap\n\nPlans:\n",
		}
		for i := 1; i <= n; i++ {
			num := fmt.Sprintf("%02d", i)
			files[".planning/phases/01-lib/01-"+num+"-PLAN.md"] = runnertest.WtPlan(num, 1, nil, []string{"src/p" + num + ".go", "src/p" + num + "_test.go"}, "")
			files[".planning/ROADMAP.md"] += "- [ ] 01-" + num + "-PLAN.md — plan " + num + "\n"
		}
		root := gittest.NewRepo(t, files)
		o := worktreeOptions(t, root, simLauncher(t), &recorder{})
		o.Schedule.MaxConcurrent = 3
		commands.Store(0)
		res, err := Run(context.Background(), o)
		if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
			t.Fatalf("%d plans: Run = %v, outcome %q", n, err, res.Snapshot.Outcome)
		}
		return commands.Load()
	}
	three, six := runPhase(3), runPhase(6)
	if perPlan := (six - three + 2) / 3; perPlan > want {
		t.Errorf("a plan costs hive %d git commands (3 plans: %d, 6 plans: %d), want at most %d", perPlan, three, six, want)
	} else {
		t.Logf("a plan costs hive %d git commands (3 plans: %d, 6 plans: %d)", perPlan, three, six)
	}
}
