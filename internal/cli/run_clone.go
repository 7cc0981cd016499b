package cli

// A hive run taken over by a worker in a clone of the project: when no
// worker of the run's folder takes the run up (its machine is gone), a
// worker of any clone does (temporal.PipelineInput.Anywhere). It takes
// the run's journal from the workflow's copy into a journal of its own,
// and the run's worktree from the remote (runShare pushed it before each
// event that follows work), and goes on as --resume does. It cannot merge
// into the user's branch: the finished work stays on the run's branch of
// the remote, and the run's result says how to bring it home.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/temporal"
)

// anywhereQueue is the task queue of hive run's workers of any clone of
// the repository (named by its root commits, which every clone shares):
// the workflow of a run with a git remote runs there, and its drivers go
// there once none of the run's folder takes the run up.
func anywhereQueue(queue, roots string) string {
	sum := sha256.Sum256([]byte("repo:" + roots))
	return fmt.Sprintf("%s-run-repo-%x", queue, sum[:4])
}

// cloneRun is a run this driver took up in a clone: its remote's name
// here.
type cloneRun struct {
	remote string
}

// takeUpRun readies the journal for a driver taking the run of workflow
// t.Workflow over: this folder's journal j, caught up with the workflow's
// copy of the run's records when it has the run (the run's folder, or a
// clone that drove it before); else, for a run that shares a git remote,
// a journal of this clone's own, adopted from the workflow, and the run's
// worktree from the remote (clone is set then, done closes that journal).
// A run the workflow has no copy of (an older hive's) is j's.
func (d *runDriver) takeUpRun(ctx context.Context, repo *gitx.Repo, cfg *config.Config, j journal.Journal, t temporal.Takeover, req runRequest) (_ journal.Journal, clone *cloneRun, done func(), err error) {
	wj := temporal.WorkflowJournal{C: d.c, ID: t.Workflow, Ctx: ctx}
	kept, err := wj.Latest()
	if err != nil || kept.ID == 0 {
		return j, nil, nil, err
	}
	recs, err := wj.Events(kept.ID, 1)
	if err != nil {
		return nil, nil, nil, err
	}
	if local, ok, err := runOf(j, kept.ID); err != nil {
		return nil, nil, nil, err
	} else if ok && local.Started.Equal(kept.Started) {
		// The run's folder: a driver in a clone may have gone on with
		// the run meanwhile (its worktree follows in Drive). A journal
		// that says otherwise than the workflow's copy is no driver's to
		// go on from.
		return j, nil, nil, reconcile(j, kept, recs)
	}
	if req.Remote == "" {
		return nil, nil, nil, fmt.Errorf("run %d is not in the journal of %s, and shares no git remote: a worker of the run's folder must drive it", kept.ID, repo.Root)
	}
	remote, err := (&phaseExecutors{remote: d.remote}).remoteName(ctx, repo, req.Remote)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := os.MkdirAll(filepath.Join(repo.Root, ".hive"), 0o755); err != nil {
		return nil, nil, nil, err
	}
	// A journal of the run's own: the workflow's id is the folder's,
	// whose next run takes the same number.
	db, err := journal.Open(filepath.Join(repo.Root, ".hive", "runs-"+unsafeBranchChars.ReplaceAllString(t.Workflow, "-")+"-"+runName(kept)+".db"))
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (journal.Journal, *cloneRun, func(), error) {
		db.Close()
		return nil, nil, nil, err
	}
	if _, ok, err := runOf(db, kept.ID); err != nil {
		return fail(err)
	} else if !ok {
		if err := db.AdoptRun(kept); err != nil {
			return fail(err)
		}
	}
	adopted := journalFaults(journal.Redacting(db, secretsOf(cfg).red))
	if err := reconcile(adopted, kept, recs); err != nil {
		return fail(err)
	}
	clone = &cloneRun{remote: remote}
	if err := runBranchAt(ctx, repo, cfg, remote, adopted, kept, true); err != nil {
		return fail(err)
	}
	return adopted, clone, func() { db.Close() }, nil
}

// reconcile is temporal.Reconcile for a driver: a journal that says
// otherwise than the workflow's copy is no driver's to go on from.
func reconcile(j journal.Journal, run journal.Run, recs []journal.Record) error {
	err := temporal.Reconcile(j, run, recs)
	if errors.Is(err, temporal.ErrDiverged) {
		return temporal.Refused(err)
	}
	return err
}

// runOf is run id of j, if j has it.
func runOf(j journal.Journal, id int64) (journal.Run, bool, error) {
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, false, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, true, nil
		}
	}
	return journal.Run{}, false, nil
}

// runBranchAt readies run's branch here for a driver that takes the run
// over from one elsewhere: at the remote's copy of the run's worktree
// (sharedRunBranch), which holds all the work the journal says is done,
// unless the branch has it already (this tree drove the run last). It
// only ever creates the branch or moves it forward, and moves a checkout
// of it only in the run's own worktree (run-N under hive's worktrees).
// There, in the run's folder (adopting false), commits beyond the
// remote's copy were never journaled, and go; in a clone (adopting) a
// branch of that name that is not the run's work is left, and the clone
// does not take the run. A run the remote has no copy of is an error
// when adopting, else left as it is.
func runBranchAt(ctx context.Context, repo *gitx.Repo, cfg *config.Config, remote string, j journal.Journal, run journal.Run, adopting bool) error {
	m, err := piperun.Replay(j, run)
	if err != nil {
		return err
	}
	branch := m.Snapshot().Spec.Branch
	if branch == "" {
		branch = piperun.Branch(run.ID)
	}
	if !strings.HasPrefix(branch, "hive/") {
		// hive names its runs' branches so: any other is not its to move.
		return fmt.Errorf("run %d's branch %q is not one of hive's (hive/…): a worker of the run's folder must drive it", run.ID, branch)
	}
	shared := sharedRunBranch(run)
	if err := repo.FetchBranches(ctx, remote, "hive/run-"+runName(run)+"/*"); err != nil {
		return err
	}
	tip := repo.RefHash(ctx, gitx.RemoteRef(shared))
	switch {
	case tip == "" && adopting:
		return fmt.Errorf("the remote %s has no branch %s: run %d's work never reached it, so only a worker of its folder can go on with it", remote, shared, run.ID)
	case tip == "":
		return nil
	}
	head := repo.RefHash(ctx, "refs/heads/"+branch)
	if head != "" && repo.IsAncestor(ctx, tip, head) {
		return nil // it has the work already
	}
	forward := head == "" || repo.IsAncestor(ctx, head, tip)
	if !forward && adopting {
		return fmt.Errorf("this clone has a branch %s that is not run %d's work: rename it, or let another worker take the run", branch, run.ID)
	}
	root, err := piperun.WorktreeRoot(piperun.Options{Repo: repo, WorktreeRoot: worktreeRoot(cfg, repo.Root)})
	if err != nil {
		return err
	}
	own := filepath.Join(root, fmt.Sprintf("run-%d", run.ID))
	trees, err := repo.Worktrees(ctx)
	if err != nil {
		return err
	}
	for _, wt := range trees {
		if wt.Branch != branch || wt.Prunable {
			continue
		}
		if !sameFolder(wt.Path, own) {
			return fmt.Errorf("run %d's branch %s is checked out in %s: hive moves it only in the run's own worktree; switch %s to another branch", run.ID, branch, wt.Path, wt.Path)
		}
		_, err := repo.At(wt.Path).Git(ctx, "reset", "-q", "--hard", tip)
		return err
	}
	if !forward {
		return fmt.Errorf("run %d's branch %s has commits its remote copy lacks, outside the run's worktree: hive leaves it", run.ID, branch)
	}
	_, err = repo.Git(ctx, "branch", "-f", "--end-of-options", branch, tip)
	return err
}

// sameFolder says whether a and b are the same folder.
func sameFolder(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// note is what the user reads when the run ends in this clone.
func (c *cloneRun) note(run journal.Run, folderRemote string) string {
	shared := sharedRunBranch(run)
	return fmt.Sprintf("a worker in a clone of the project drove run %d to its end: its work is on branch %s of %s; bring it to your branch with: git fetch %s %s && git merge FETCH_HEAD",
		run.ID, shared, folderRemote, folderRemote, shared)
}

// catchUpFolder brings this folder's journal j up to the workflow id's
// copy of its run, when a driver elsewhere (a clone) journaled what j
// lacks: hive report, status and the next hive run here then know how the
// run went.
func catchUpFolder(ctx context.Context, c client.Client, id string, j journal.Journal) error {
	wj := temporal.WorkflowJournal{C: c, ID: id, Ctx: ctx}
	kept, err := wj.Latest()
	if err != nil || kept.ID == 0 {
		return err
	}
	local, ok, err := runOf(j, kept.ID)
	if err != nil || !ok || !local.Started.Equal(kept.Started) || local.Events >= kept.Events && !local.Finished.IsZero() {
		return err
	}
	recs, err := wj.Events(kept.ID, 1)
	if err != nil {
		return err
	}
	return temporal.Reconcile(j, kept, recs)
}

// runMarker says where the project's hive run on Temporal is (written by
// hive run --backend temporal, in .hive/run-temporal.json): a plain hive
// answer in the folder sends the answer there, where a driver in a clone
// gets it too.
type runMarker struct {
	Workflow  string `json:"workflow"`
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
}

func runMarkerPath(root string) string { return filepath.Join(root, ".hive", "run-temporal.json") }

// markRunOnTemporal writes the marker of the run of workflow id.
func markRunOnTemporal(root, id string, f temporalFlags) error {
	data, err := json.Marshal(runMarker{Workflow: id, Address: f.address, Namespace: f.namespace})
	if err != nil {
		return err
	}
	return os.WriteFile(runMarkerPath(root), append(data, '\n'), 0o644)
}

// runOnTemporal reads the marker, if there is one.
func runOnTemporal(root string) (runMarker, bool) {
	var m runMarker
	data, err := os.ReadFile(runMarkerPath(root))
	if err != nil || json.Unmarshal(data, &m) != nil || m.Address == "" {
		return m, false
	}
	return m, true
}
