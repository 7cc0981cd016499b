package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/stalelocks"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner/planning"
)

// Branch is the phase's integration branch, its worktree and the
// worktrees of the plans. Merges, gates and the verification run one at a
// time on its own goroutine, in the order they were asked for: a plan's
// completion order.
type Branch struct {
	repo     *gitx.Repo
	phase    *plan.Phase
	space    string // what names its branches and worktrees (Git.Namespace)
	root     string // the phase's worktrees: <worktree root>/<phase number>
	branch   string // the integration branch
	dir      string // its worktree
	target   string // strategy none: the user's branch to fast-forward at the end ("" for none)
	strategy string
	now      func() time.Time
	// ownRoot: the worktree root is hive's folder in the user's cache (not
	// one the user configured), removed once empty.
	ownRoot bool

	jobs chan func()
	wg   sync.WaitGroup

	mu     sync.Mutex
	merged map[string]bool // plans merged by this process
}

// Open creates (or, on resume, finds) the integration branch and its
// worktree, and drops what a killed merge left half done.
func Open(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, g Git, now func() time.Time, say func(plan, text string)) (*Branch, error) {
	root, err := g.Root(repo)
	if err != nil {
		return nil, err
	}
	strategy, space := g.Strategy(), g.Space(phase)
	in := &Branch{
		repo:     repo,
		phase:    phase,
		space:    space,
		root:     filepath.Join(root, space),
		branch:   BranchName(strategy, space),
		strategy: strategy,
		jobs:     make(chan func(), 1024),
		merged:   map[string]bool{},
		now:      now,
		ownRoot:  g.WorktreeRoot == "",
	}
	if in.now == nil {
		in.now = time.Now
	}
	in.dir = filepath.Join(in.root, "integration")
	if strategy == BranchingNone {
		in.target = repo.CurrentBranch(ctx)
	}
	if rel, err := filepath.Rel(repo.Root, root); err == nil && filepath.IsLocal(rel) {
		// Worktrees inside the repository must not show as its changes.
		if err := repo.Exclude(ctx, "/"+filepath.ToSlash(rel)+"/"); err != nil {
			return nil, err
		}
	}
	if _, err := repo.Head(ctx); err != nil {
		return nil, fmt.Errorf("%w: %s has no commit yet: hive runs each plan in a worktree made from your commits, so commit the project (with .planning/) first, or set workflow.use_worktrees to false", ErrDirty, repo.Root)
	}
	// A git killed mid-write leaves its lock, and git refuses to work
	// until it goes: clear those of what this phase's run owns.
	notes, err := stalelocks.Clear(ctx, repo, in.root, "hive/"+space, in.branch)
	for _, n := range notes {
		say("", n)
	}
	if err != nil {
		return nil, err
	}
	if err := worktrees.Prune(ctx, repo); err != nil {
		return nil, fmt.Errorf("git worktree prune: %w", err)
	}
	if err := worktrees.Add(ctx, repo, in.dir, in.branch, "HEAD"); err != nil {
		return nil, fmt.Errorf("integration worktree: %w", err)
	}
	ig := in.repo.At(in.dir)
	if err := ig.Locked(ctx, func() error { return ig.DropHalfDone(ctx) }); err != nil {
		return nil, fmt.Errorf("clean the integration worktree %s: %w", in.dir, err)
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for job := range in.jobs {
			job()
		}
	}()
	return in, nil
}

// PlanDir is where plan id's worktree lives.
func (in *Branch) PlanDir(id string) string { return filepath.Join(in.root, id) }

// PlanBranch is plan id's branch.
func (in *Branch) PlanBranch(id string) string { return gitx.PlanBranch(in.space, id) }

// Name is the integration branch's name.
func (in *Branch) Name() string { return in.branch }

// Dir is the integration branch's worktree.
func (in *Branch) Dir() string { return in.dir }

// Repo is the repository the branch and its worktrees belong to.
func (in *Branch) Repo() *gitx.Repo { return in.repo }

// Do runs job on the integration goroutine, after the jobs asked before it.
func (in *Branch) Do(job func()) { in.jobs <- job }

// Close waits for the jobs asked so far.
func (in *Branch) Close() {
	close(in.jobs)
	in.wg.Wait()
}

// PreparePlan makes plan p's worktree (from the integration branch, which
// holds every plan p depends on) and runs the setup hook in a new one.
//
// since is the run's start for p: a branch of p's id that does not hold it
// holds other work (an earlier milestone's plan with the same id left it
// unmerged), and is set aside, renamed and kept, so that its commits are
// never taken for this plan's tasks.
func (in *Branch) PreparePlan(ctx context.Context, p *plan.Plan, setup Setup, since string) (string, error) {
	dir := in.PlanDir(p.ID)
	branch := in.PlanBranch(p.ID)
	if since != "" && in.repo.BranchExists(ctx, branch) && !in.repo.IsAncestor(ctx, since, branch) {
		tip, _ := in.repo.Git(ctx, "rev-parse", "--short", branch)
		aside := "hive/stale/" + in.space + "/" + p.ID + "-" + strings.TrimSpace(tip)
		if err := worktrees.SetAside(ctx, in.repo, branch, aside); err != nil {
			return "", fmt.Errorf("branch %s holds work from before this run: %w", branch, err)
		}
		worktrees.Note(ctx, "branch %s held work from before this run (an earlier plan with the same id): kept as %s; this plan starts afresh", branch, aside)
	}
	_, statErr := os.Stat(dir)
	if err := worktrees.Add(ctx, in.repo, dir, in.PlanBranch(p.ID), in.branch); err != nil {
		return "", fmt.Errorf("worktree for %s: %w", p.ID, err)
	}
	if os.IsNotExist(statErr) {
		if err := setup.Run(ctx, in.repo.Root, dir); err != nil {
			return "", fmt.Errorf("worktree setup for %s: %w", p.ID, err)
		}
	}
	return dir, nil
}

// CatchUp fast-forwards p's branch to the integration branch, which already
// holds p's merged work: a fix agent starts from what the gate saw.
func (in *Branch) CatchUp(ctx context.Context, id string) error {
	pw := in.repo.At(in.PlanDir(id))
	return pw.Locked(ctx, func() error {
		_, err := pw.Git(ctx, "merge", "--ff-only", "-q", in.branch)
		return err
	})
}

// MergeResult is what a merge did.
type MergeResult struct {
	OK     bool
	Files  []string // conflicting files
	Reason string
}

// Merge merges plan p into the integration branch with a merge commit that
// also carries STATE.md and ROADMAP.md as they stand after it. It is
// idempotent: a plan already merged (hive was killed after the commit) is
// reported merged again, never merged twice. On a conflict the merge is
// undone and redone the other way round in the plan's worktree (the
// integration branch into the plan's branch), so that a resolver agent or a
// human finds both sides there.
func (in *Branch) Merge(ctx context.Context, p *plan.Plan, snap phase.Snapshot) MergeResult {
	var res MergeResult
	err := in.repo.Locked(ctx, func() error {
		var err error
		res, err = in.mergeLocked(ctx, p, snap)
		return err
	})
	if err != nil {
		return MergeResult{Reason: err.Error()}
	}
	if res.OK {
		in.mu.Lock()
		in.merged[p.ID] = true
		in.mu.Unlock()
	}
	return res
}

func (in *Branch) mergeLocked(ctx context.Context, p *plan.Plan, snap phase.Snapshot) (MergeResult, error) {
	ig := in.repo.At(in.dir)
	pw := in.repo.At(in.PlanDir(p.ID))
	branch := in.PlanBranch(p.ID)
	if err := ig.AbortMerge(ctx); err != nil {
		return MergeResult{}, err
	}
	if !in.repo.BranchExists(ctx, branch) {
		if in.mergedBefore(ctx, p.ID) {
			return MergeResult{OK: true, Reason: "already merged"}, nil
		}
		return MergeResult{}, fmt.Errorf("branch %s is gone and was never merged", branch)
	}
	if _, err := os.Stat(pw.Root); err == nil && pw.MergeInProgress(ctx) {
		// A resolver or a human worked on the conflict here.
		files, err := pw.Unmerged(ctx)
		if err != nil {
			return MergeResult{}, err
		}
		if len(files) > 0 {
			return MergeResult{Files: files, Reason: "still unresolved in " + pw.Root}, nil
		}
		if err := pw.CommitAll(ctx, fmt.Sprintf("hive: resolve conflicts between %s and %s", branch, in.branch)); err != nil {
			return MergeResult{}, err
		}
	}
	msg := fmt.Sprintf("hive: merge plan %s (%s)\n\nHive-Merge: %s", p.ID, p.Name, p.ID)
	files, err := ig.Merge(ctx, branch, msg)
	if err != nil && strings.Contains(err.Error(), "untracked working tree files would be overwritten") {
		// A hive killed in the middle of this merge left what git had
		// written of the plan's files: they are the branch's own, so
		// they go, and the merge is made again.
		if n, derr := ig.DropUntrackedOf(ctx, branch); derr == nil && n > 0 {
			if err := ig.AbortMerge(ctx); err != nil {
				return MergeResult{}, err
			}
			files, err = ig.Merge(ctx, branch, msg)
		}
	}
	if err == nil && !ig.MergeInProgress(ctx) {
		// git merged nothing ("Already up to date"): the branch is in HEAD's
		// history, as a killed run's merge commit left it. Asking first
		// (merge-base --is-ancestor) cost every merge a git process.
		return MergeResult{OK: true, Reason: "already merged"}, nil
	}
	if errors.Is(err, gitx.ErrConflict) {
		files, err = in.takeOursForTracking(ctx, ig, files)
	}
	if err != nil && !errors.Is(err, gitx.ErrConflict) {
		ig.AbortMerge(ctx)
		return MergeResult{}, err
	}
	if len(files) > 0 {
		if err := ig.AbortMerge(ctx); err != nil {
			return MergeResult{}, err
		}
		// Replay the conflict in the plan's worktree for whoever resolves it.
		if err := pw.AbortMerge(ctx); err != nil {
			return MergeResult{}, err
		}
		pw.Merge(ctx, in.branch, fmt.Sprintf("hive: merge %s into %s to resolve conflicts", in.branch, branch))
		return MergeResult{Files: files, Reason: "resolve them in " + pw.Root}, nil
	}
	restored, err := in.keepSummaries(ctx, ig, p)
	if err != nil {
		return MergeResult{}, err
	}
	crashPoint("merge", p.ID)
	if err := in.writeTracking(ctx, ig, snap, p.ID, "Completed "+filepath.Base(p.Path)); err != nil {
		return MergeResult{}, err
	}
	if err := ig.CommitAll(ctx, msg, planning.ExistingTracking(ig.Root)...); err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{OK: true}
	if len(restored) > 0 {
		res.Reason = "kept SUMMARY files the merge would have changed: " + strings.Join(restored, ", ")
	}
	return res, nil
}

// mergedBefore looks for p's merge commit on the integration branch.
func (in *Branch) mergedBefore(ctx context.Context, id string) bool {
	out, err := in.repo.Git(ctx, "log", "--format=%H", "-F", "--grep", "Hive-Merge: "+id, in.branch)
	return err == nil && strings.TrimSpace(out) != ""
}

// takeOursForTracking settles conflicts in STATE.md and ROADMAP.md, which
// hive rewrites anyway, and returns the conflicts that remain.
func (in *Branch) takeOursForTracking(ctx context.Context, ig *gitx.Repo, files []string) ([]string, error) {
	var rest []string
	for _, f := range files {
		if f != planning.TrackingFiles[0] && f != planning.TrackingFiles[1] {
			rest = append(rest, f)
			continue
		}
		if _, err := ig.Git(ctx, "checkout", "--ours", "--", f); err != nil {
			return nil, err
		}
		if _, err := ig.Git(ctx, "add", "-f", "--", f); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// keepSummaries undoes whatever the merge did to the SUMMARY files of other
// plans already on the integration branch: a plan owns only its own. Two
// git commands read the blobs at HEAD and in the index, whatever the
// phase's size (a look-up per file made a 50-plan phase's merges run
// some 2,500 git processes).
func (in *Branch) keepSummaries(ctx context.Context, ig *gitx.Repo, p *plan.Plan) ([]string, error) {
	dir := filepath.ToSlash(filepath.Dir(p.Path)) + "/"
	head, err := ig.Git(ctx, "ls-tree", "-r", "-z", "HEAD", "--", dir)
	if err != nil {
		return nil, err
	}
	index, err := ig.Git(ctx, "ls-files", "-s", "-z", "--", dir)
	if err != nil {
		return nil, err
	}
	// What the index holds at stage 0; a conflicted file (stages 1-3) has
	// no such entry, and so differs from HEAD, as a deleted one does.
	staged := map[string]string{}
	for _, e := range strings.Split(index, "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[2] == "0" {
			staged[path] = f[1]
		}
	}
	own := p.SummaryPath()
	var restored []string
	for _, e := range strings.Split(head, "\x00") {
		meta, f, ok := strings.Cut(e, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || !strings.HasSuffix(f, "-SUMMARY.md") || f == own || staged[f] == fields[2] {
			continue
		}
		if _, err := ig.Git(ctx, "checkout", "HEAD", "--", f); err != nil {
			return nil, err
		}
		restored = append(restored, f)
	}
	return restored, nil
}

// writeTracking writes STATE.md and ROADMAP.md into dir as the snapshot
// shows the phase, with the plans merged so far (and extra) counted done.
func (in *Branch) writeTracking(ctx context.Context, dir *gitx.Repo, snap phase.Snapshot, extra, activity string) error {
	in.mu.Lock()
	done := map[string]bool{extra: extra != ""}
	for id := range in.merged {
		done[id] = true
	}
	in.mu.Unlock()
	return planning.WriteTracking(dir.Root, in.phase, snap, done, activity, in.now())
}

// Unmerge takes plan p's merged work off the integration branch when the
// plan did not end complete (its post-merge gate kept failing and it was
// skipped, or a human aborted): what failed never reaches the user's
// branch. Each of the run's merges of p (after since) not yet undone is
// reverted, in a commit that carries STATE.md and ROADMAP.md counting p
// as not done. It is idempotent, so a resumed run can call it again. The
// plan's branch keeps its work for inspection.
func (in *Branch) Unmerge(ctx context.Context, p *plan.Plan, since string, snap phase.Snapshot) (bool, error) {
	in.mu.Lock()
	delete(in.merged, p.ID)
	in.mu.Unlock()
	ig := in.repo.At(in.dir)
	undone := false
	err := in.repo.Locked(ctx, func() error {
		rng := in.branch
		if since != "" {
			rng = since + ".." + in.branch
		}
		merges, err := in.repo.Git(ctx, "log", "--format=%H", "-F", "--grep", "Hive-Merge: "+p.ID, rng, "--")
		if err != nil {
			return err
		}
		reverts, err := in.repo.Git(ctx, "log", "--format=%H", "-F", "--grep", "Hive-Unmerge: "+p.ID, rng, "--")
		if err != nil {
			return err
		}
		todo := strings.Fields(merges)                               // newest first
		todo = todo[:max(0, len(todo)-len(strings.Fields(reverts)))] // the newest ones are not undone yet
		if len(todo) == 0 {
			return nil
		}
		if err := ig.AbortMerge(ctx); err != nil {
			return err
		}
		ig.Git(ctx, "revert", "--abort") // what a killed unmerge left; fails when there is none
		for _, m := range todo {
			if _, err := ig.Git(ctx, "revert", "-m", "1", "--no-commit", m); err != nil {
				files, _ := ig.Unmerged(ctx)
				rest, terr := in.takeOursForTracking(ctx, ig, files)
				if terr != nil || len(rest) > 0 {
					ig.Git(ctx, "revert", "--abort")
					return fmt.Errorf("undo merge %s: %v; undo it yourself with `git revert -m 1 %s` on %s", m[:min(12, len(m))], err, m, in.branch)
				}
			}
		}
		if err := in.writeTracking(ctx, ig, snap, "", "Took plan "+p.ID+" off the phase: it did not complete"); err != nil {
			return err
		}
		msg := fmt.Sprintf("hive: take plan %s off the phase (it did not complete)\n\nHive-Unmerge: %s", p.ID, p.ID)
		if err := ig.CommitAll(ctx, msg, planning.ExistingTracking(ig.Root)...); err != nil {
			return err
		}
		undone = true
		return nil
	})
	return undone, err
}

// Drop removes the integration worktree of a run that will not happen,
// and its branch unless the branching strategy keeps it.
func (in *Branch) Drop(ctx context.Context) error {
	in.Close()
	del := in.branch
	if in.strategy == BranchingPhase {
		del = ""
	}
	return worktrees.Remove(ctx, in.repo, in.dir, del)
}

// RemovePlan removes a merged plan's worktree and branch.
func (in *Branch) RemovePlan(ctx context.Context, id string) error {
	return worktrees.Remove(ctx, in.repo, in.PlanDir(id), in.PlanBranch(id))
}

// Finish records the end of the run on the integration branch (STATE.md,
// ROADMAP.md), brings the work to the user's branch (strategy none: a
// fast-forward, refused by git if it would touch the user's changes) and
// removes the integration worktree. It returns what the user should know.
func (in *Branch) Finish(ctx context.Context, snap phase.Snapshot, scope map[string]string) []string {
	var notes []string
	for _, ps := range snap.Plans {
		// A plan that did not complete has no work on the branch, also when
		// a killed run merged it and never got to undo that.
		if p := in.phase.Plan(ps.Spec.ID); p != nil && ps.State != phase.Complete && !ps.Spec.Done {
			if _, err := in.Unmerge(ctx, p, scope[ps.Spec.ID], snap); err != nil {
				notes = append(notes, "plan "+ps.Spec.ID+" did not complete, but its merge stays: "+err.Error())
			}
		}
	}
	// One listing for every plan: a plan whose clean-up ran after its merge,
	// as most did, has nothing left to remove and costs no git process.
	wts, listErr := worktrees.List(ctx, in.repo)
	for _, p := range snap.Plans {
		// A merged plan whose clean-up a killed run never did.
		if p.State == phase.Complete && !p.Spec.Done {
			if listErr == nil && worktrees.Find(wts, in.PlanDir(p.Spec.ID)) == nil && !in.repo.BranchExists(ctx, in.PlanBranch(p.Spec.ID)) {
				continue
			}
			if err := in.RemovePlan(ctx, p.Spec.ID); err != nil {
				notes = append(notes, "remove the worktree of "+p.Spec.ID+": "+err.Error())
			}
		}
	}
	ig := in.repo.At(in.dir)
	err := in.repo.Locked(ctx, func() error {
		if err := ig.AbortMerge(ctx); err != nil {
			return err
		}
		if err := in.writeTracking(ctx, ig, snap, "", "Phase "+in.phase.Number+" run finished: "+snap.Outcome); err != nil {
			return err
		}
		return ig.CommitAll(ctx, fmt.Sprintf("hive: phase %s %s", in.phase.Number, snap.Outcome), planning.ExistingTracking(ig.Root)...)
	})
	if err != nil {
		notes = append(notes, "record the end of the run on "+in.branch+": "+err.Error())
	}
	keepBranch := in.strategy == BranchingPhase
	if in.strategy == BranchingNone {
		err := in.repo.Locked(ctx, func() error {
			_, err := in.repo.Git(ctx, "merge", "--ff-only", "-q", in.branch)
			return err
		})
		if err != nil {
			keepBranch = true
			where := in.target
			if where == "" {
				where = "HEAD"
			}
			notes = append(notes, fmt.Sprintf("could not fast-forward %s to the phase's work (%v); merge it yourself: git merge %s", where, err, in.branch))
		}
	} else {
		notes = append(notes, fmt.Sprintf("the phase's work is on branch %s: merge it when you are ready", in.branch))
	}
	del := ""
	if !keepBranch {
		del = in.branch
	}
	if err := worktrees.Remove(ctx, in.repo, in.dir, del); err != nil {
		notes = append(notes, "remove the integration worktree: "+err.Error())
	}
	in.RemoveEmptyFolders()
	return notes
}

// RemoveEmptyFolders removes the phase's worktree folder once it is empty,
// and hive's folder for the repository in the cache folder above it: a
// finished run leaves nothing behind (os.Remove never removes a folder
// that still holds something, such as another phase's worktrees).
func (in *Branch) RemoveEmptyFolders() {
	if os.Remove(in.root) != nil || !in.ownRoot {
		return
	}
	// <cache>/hive/worktrees/<repo>-<hash>, then worktrees, then hive.
	dir := filepath.Dir(in.root)
	for range 3 {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
