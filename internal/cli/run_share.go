package cli

// The run's worktree on the git remote: a hive run on Temporal with
// --git-remote pushes its worktree's commits, before it journals what
// follows them (piperun.Options.Share), to a branch of its own there, so
// that its work outlives the machine that drives it.

import (
	"context"
	"fmt"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
)

// sharedRunBranch is the branch of the remote that holds run's worktree:
// in the run's own namespace (that of its phases' branches is
// run-…-JOB-ATTEMPT), so that no other run or clone meets it.
func sharedRunBranch(run journal.Run) string {
	return "hive/run-" + runName(run) + "/run"
}

// runShare pushes a run's worktree to remote.
type runShare struct {
	remote string
	// at is the commit the remote's branch is at as far as this driver
	// knows: the lease of its next push, so that a driver that was taken
	// for dead never overwrites the work of the one that took over.
	at    string
	known bool
	// brings: the run's roles work on other machines (roleWorkers),
	// which push to the branch; their work comes to the worktree before
	// anything follows it.
	brings bool
}

// share implements piperun.Options.Share.
func (r *runShare) share(ctx context.Context, dir string, run journal.Run) error {
	tree, err := gitx.Open(ctx, dir)
	if err != nil {
		return err
	}
	if r.brings {
		if err := r.bring(ctx, tree, run); err != nil {
			return err
		}
	}
	head, err := tree.Head(ctx)
	if err != nil {
		return err
	}
	return r.push(ctx, tree, head, run)
}

// bring fast-forwards the run's worktree (tree) to the remote's branch of
// the run, where a role's session on another machine pushed its work.
func (r *runShare) bring(ctx context.Context, tree *gitx.Repo, run journal.Run) error {
	branch := sharedRunBranch(run)
	if err := tree.FetchBranches(ctx, r.remote, "hive/run-"+runName(run)+"/*"); err != nil {
		return err
	}
	tip := tree.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return nil // not shared yet: the push makes it
	}
	head, err := tree.Head(ctx)
	if err != nil {
		return err
	}
	if tip != head && tree.IsAncestor(ctx, head, tip) {
		if _, err := tree.Git(ctx, "merge", "-q", "--ff-only", tip); err != nil {
			return fmt.Errorf("bring the role's work from %s: %w", branch, err)
		}
	} else if !tree.IsAncestor(ctx, tip, head) {
		return fmt.Errorf("the remote's %s has work this tree lacks (%s): another driver went on with the run", branch, tip)
	}
	r.at, r.known = tip, true
	return nil
}

// push sets run's branch on the remote to rev, from where this driver
// last knew it to be.
func (r *runShare) push(ctx context.Context, repo *gitx.Repo, rev string, run journal.Run) error {
	branch := sharedRunBranch(run)
	if !r.known {
		// Where a driver before this one left it (none: it is new),
		// which this one goes on from: never back.
		if err := repo.FetchBranches(ctx, r.remote, "hive/run-"+runName(run)+"/*"); err != nil {
			return err
		}
		at := repo.RefHash(ctx, gitx.RemoteRef(branch))
		if at != "" && !repo.IsAncestor(ctx, at, rev) {
			return fmt.Errorf("the remote's %s has work this tree lacks (%s): another driver went on with the run", branch, at)
		}
		r.at, r.known = at, true
	}
	if rev == r.at {
		return nil
	}
	lease := r.at
	if err := repo.PushBranch(ctx, r.remote, rev, branch, &lease); err != nil {
		return fmt.Errorf("%w (another driver may have taken the run over)", err)
	}
	r.at = rev
	return nil
}

// clearMerged deletes run's branch from the remote when its work is in
// this repository's checked-out branch (merged home).
func (r *runShare) clearMerged(ctx context.Context, repo *gitx.Repo, run journal.Run) {
	branch := sharedRunBranch(run)
	if repo.FetchBranches(ctx, r.remote, "hive/run-"+runName(run)+"/*") != nil {
		return
	}
	if tip := repo.RefHash(ctx, gitx.RemoteRef(branch)); tip != "" && repo.IsAncestor(ctx, tip, "HEAD") {
		r.clear(ctx, repo, run)
	}
}

// clear deletes run's branch from the remote once the run has ended.
func (r *runShare) clear(ctx context.Context, repo *gitx.Repo, run journal.Run) error {
	return repo.DeleteRemoteBranches(ctx, r.remote, sharedRunBranch(run))
}
