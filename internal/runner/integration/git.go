package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner/planning"
)

// Branching strategies (git.branching_strategy).
const (
	BranchingNone  = "none"  // integrate on a hidden branch; fast-forward the current branch at the end
	BranchingPhase = "phase" // integrate on hive/phase-NN, left for the user to merge
)

// Git says where plans work and how their work is merged.
type Git struct {
	// Worktrees gives each plan a git worktree and branch of its own, merged
	// into the integration branch when the plan completes
	// (workflow.use_worktrees).
	Worktrees bool
	// WorktreeRoot is where worktrees go (git.worktree_dir); "" means the
	// user's cache folder, keyed by repository.
	WorktreeRoot string
	// Branching is git.branching_strategy: BranchingNone or BranchingPhase.
	Branching string
	// AllowDirty runs even though the user's working tree has uncommitted
	// changes (which the agents, working from commits, do not see).
	AllowDirty bool
	// Setup prepares each new plan worktree (workflow.worktree_setup).
	Setup Setup
	// GateCommand runs after each merge (gates.post_merge_command); "" for none.
	GateCommand string
	// Remote is the git remote (a name or a URL) through which the workers
	// of a distributed run share work, each in a clone of its own; "" when
	// they share this repository's folder. It implies Worktrees.
	Remote string
	// Namespace names the run's branches and worktrees (hive/NS/integration,
	// hive/NS/PLAN) when the phase's number would not tell its runs apart:
	// a hive run's phase, whose branches on a shared remote must meet no
	// other run's. "" names them by the phase's number.
	Namespace string
}

// Space is what names the branches and worktrees of a run of phase.
func (g Git) Space(phase *plan.Phase) string {
	if g.Namespace != "" {
		return g.Namespace
	}
	return phase.Number
}

// BranchName names the branch a phase's plans are merged into: strategy
// is a Git's Strategy, and phase what names the run's branches (its
// Space).
func BranchName(strategy, phase string) string {
	if strategy == BranchingPhase {
		return "hive/phase-" + phase
	}
	return "hive/" + phase + "/integration"
}

// Root is where the worktrees of repo's runs go: WorktreeRoot, or
// hive's folder in the user's cache.
func (g Git) Root(repo *gitx.Repo) (string, error) {
	if g.WorktreeRoot != "" {
		return g.WorktreeRoot, nil
	}
	return worktrees.DefaultRoot(repo.Root)
}

// Strategy is the strategy git.branching_strategy names: BranchingPhase,
// or BranchingNone for anything else.
func (g Git) Strategy() string {
	if g.Branching == BranchingPhase {
		return BranchingPhase
	}
	return BranchingNone
}

// IntegrationBranch is the branch the plans of a run of phase are merged
// into.
func (g Git) IntegrationBranch(phase *plan.Phase) string {
	return BranchName(g.Strategy(), g.Space(phase))
}

// CheckClean refuses a working tree with uncommitted changes: plans run in
// worktrees made from commits, so an agent would not see them. It is the
// one rule of execute-phase and hive run (an ErrDirty, with the files and
// the fix).
func CheckClean(ctx context.Context, repo *gitx.Repo) error {
	all, err := repo.Dirty(ctx)
	if err != nil {
		return fmt.Errorf("look for uncommitted changes: %w", err)
	}
	var files []string
	for _, f := range all {
		if !planning.IsOwnFile(f) { // hive's own views are never the user's changes
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil
	}
	shown := files[:min(len(files), 8)]
	more := ""
	if len(files) > len(shown) {
		more = fmt.Sprintf("\n  … and %d more", len(files)-len(shown))
	}
	return fmt.Errorf("%w: %s has uncommitted changes:\n  %s%s\nhive runs each plan in a git worktree made from your commits, so the agents would not see them. Commit or stash them, or run again with --allow-dirty",
		ErrDirty, repo.Root, strings.Join(shown, "\n  "), more)
}

// ErrDirty refuses a run in a working tree with uncommitted changes.
var ErrDirty = errors.New("refusing to run")
