package runworker

// A hive run whose work goes through a git remote (--git-remote): its
// workflow and its commands are on the repository's queue, which the
// workers of every clone serve, wherever they are; the run's worktree is
// a branch of the remote, hive/run-N-…/run. A worker makes a worktree of
// its clone from that branch for each command, carries the command out
// there and pushes what it committed (with a lease: a worker taken for
// dead never overwrites the work of the one that went on), a role's
// commits before its report goes to the workflow. Only the folder's part
// stays in the folder: the journal, kept as a view, and the delivery into
// your branch, which brings the remote's branch home first.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
)

// AnywhereQueue is the task queue of hive run's workers of any clone of
// the repository (named by its root commits, which every clone shares):
// the workflow and the commands of a run with a git remote go there.
func AnywhereQueue(queue, roots string) string {
	return FolderQueue(queue, "repo "+roots) + "-repo"
}

// RunSpace names a run's branches on the remote (hive/NAMESPACE/…):
// its own, whatever other runs and clones share the remote.
func RunSpace(run journal.Run) string { return "run-" + RunName(run) }

// RemoteRunBranch is the branch of the remote that holds the run's
// worktree.
func RemoteRunBranch(namespace string) string { return "hive/" + namespace + "/run" }

// ShareRun pushes the run's worktree dir to the remote as its branch,
// unless the remote has it already (a resumed run: the remote holds what
// the workers did since).
func ShareRun(ctx context.Context, repo *gitx.Repo, remote, namespace, dir string) error {
	branch := RemoteRunBranch(namespace)
	if err := repo.FetchBranches(ctx, remote, "hive/"+namespace+"/*"); err != nil {
		return err
	}
	if repo.RefHash(ctx, gitx.RemoteRef(branch)) != "" {
		return nil
	}
	head, err := repo.At(dir).Head(ctx)
	if err != nil {
		return err
	}
	none := ""
	return repo.PushBranch(ctx, remote, head, branch, &none)
}

// remoteTree is a worktree of repo (a clone, or the run's folder) made
// from the run's branch on the remote for one command, under root; push
// pushes what was committed there since, close removes it.
type remoteTree struct {
	repo           *gitx.Repo
	remote, branch string
	dir            string
	mu             sync.Mutex
	lease          string // where the remote's branch is, as far as this tree knows
}

// openRemoteTree fetches the run's branch and checks it out at its tip in
// a worktree of repo under root/NAMESPACE (left there by a worker that
// died, it is made anew).
func openRemoteTree(ctx context.Context, repo *gitx.Repo, remote string, w *temporal.Where, run int64, root string) (*remoteTree, error) {
	if !runNamespace.MatchString(w.Namespace) {
		return nil, fmt.Errorf("the run's namespace %q is not one hive run makes", w.Namespace)
	}
	branch := RemoteRunBranch(w.Namespace)
	if err := repo.FetchBranches(ctx, remote, "hive/"+w.Namespace+"/*"); err != nil {
		return nil, err
	}
	tip := repo.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return nil, fmt.Errorf("the run's branch %s is not on %s (the run's folder shares it when the run starts)", branch, remote)
	}
	dir := filepath.Join(root, w.Namespace, fmt.Sprintf("run-%d", run))
	worktrees.Remove(ctx, repo, dir, "")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if _, err := repo.Git(ctx, "worktree", "add", "-q", "-f", "-B", branch, "--", dir, tip); err != nil {
		return nil, fmt.Errorf("the run's worktree from %s of %s: %w", branch, remote, err)
	}
	return &remoteTree{repo: repo, remote: remote, branch: branch, dir: dir, lease: tip}, nil
}

// push pushes the tree's commits to the run's branch, from where it was.
func (t *remoteTree) push(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Even for a command that was stopped: what it committed is the run's.
	ctx = context.WithoutCancel(ctx)
	head, err := t.repo.At(t.dir).Head(ctx)
	if err != nil || head == t.lease {
		return err
	}
	lease := t.lease
	if err := t.repo.PushBranch(ctx, t.remote, head, t.branch, &lease); err != nil {
		return fmt.Errorf("%w (another worker went on with the run)", err)
	}
	t.lease = head
	return nil
}

func (t *remoteTree) close() { worktrees.Remove(context.Background(), t.repo, t.dir, t.branch) }

// executeRemote carries w's command out in a remote tree of repo: the
// role's commits are pushed before its report goes on (a report of work
// the run's branch does not hold is no report: the session then ends as
// a crash), and every command's after it ends.
func executeRemote(ctx context.Context, pw *piperun.Worker, repo *gitx.Repo, remote string, w objective.Work, emit func(roleplan.Event)) ([]roleplan.Event, error) {
	root, err := piperun.WorktreeRoot(piperun.Options{Repo: repo})
	if err != nil {
		return nil, err
	}
	t, err := openRemoteTree(ctx, repo, remote, w.Where, w.Run, filepath.Join(root, "remote"))
	if err != nil {
		return nil, err
	}
	defer t.close()
	opts := pw.Options
	opts.Repo, opts.WorktreeRoot = repo, filepath.Dir(t.dir)
	if !gitx.SameDir(repo.Root, w.Where.Dir) {
		// A clone's journal holds runs of its own: the run's shell
		// records (the context given, the memory's warnings) are dropped
		// here, never written into another run.
		opts.Journal = nil
	}
	here := &piperun.Worker{Options: opts, Notes: pw.Notes}
	var mu sync.Mutex
	lost := "" // why the session's work did not reach the run's branch
	shared := func(ev roleplan.Event) {
		if ev.Type == roleplan.EvReport || ev.Type == roleplan.EvAgentExited {
			if err := t.push(ctx); err != nil {
				mu.Lock()
				if lost == "" {
					lost = "its work could not be pushed to " + t.branch + ": " + err.Error()
				}
				mu.Unlock()
			}
			mu.Lock()
			why := lost
			mu.Unlock()
			switch {
			case why != "" && ev.Type == roleplan.EvReport:
				emit(roleplan.Event{Type: roleplan.EvNote, Job: ev.Job, Text: why + ": its report does not count"})
				return
			case why != "":
				ev.ExitCode, ev.Reason = max(ev.ExitCode, 1), joinWhy(ev.Reason, why)
			}
		}
		emit(ev)
	}
	evs, err := here.Execute(ctx, piperun.Work{Run: w.Run, Command: w.Command, State: w.State, Branch: t.branch}, shared)
	if err != nil {
		return evs, err
	}
	if err := t.push(ctx); err != nil {
		return nil, err // tried again, or the machine hears it failed
	}
	return evs, nil
}

// joinWhy joins two reasons.
func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// bringHome fetches the run's branch from the remote and sets the run's
// worktree in the folder (dir) to it, for the delivery: the workers did
// the run's work in their clones.
func bringHome(ctx context.Context, repo *gitx.Repo, remote, namespace, dir string) error {
	branch := RemoteRunBranch(namespace)
	if err := repo.FetchBranches(ctx, remote, "hive/"+namespace+"/*"); err != nil {
		return err
	}
	tip := repo.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return fmt.Errorf("the run's branch %s is not on %s", branch, remote)
	}
	if _, err := repo.At(dir).Git(ctx, "reset", "-q", "--hard", tip); err != nil {
		return fmt.Errorf("bring the run's work from %s of %s: %w", branch, remote, err)
	}
	return nil
}
