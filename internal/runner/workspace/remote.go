package workspace

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
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner/check"
	"github.com/hivectl/hive/internal/runner/integration"
)

// Remote is a worker's side of a run whose workers share work through
// a git remote (Git.Remote), each in a clone of its own: the remote holds
// the run's integration branch and a branch per plan. Before a command the
// worker brings the trees it needs to what the remote has (the integration
// worktree, the plan's branch and worktree); after it, it pushes what it
// wrote: a session's commits (also every few seconds while it works, so
// that a machine that dies takes little with it), a merge. Merges are
// serialized by the run's workflow, so the integration branch only ever
// moves forward; a plan's branch is pushed with a lease on the commit the
// worker last saw there, so that a worker that lost its plan (taken for
// dead, then back) never overwrites the work of the one that took it over.
// The agents that work on shared trees run on any worker too: a resolver
// finds its conflict replayed in its plan's worktree, and the verifier's
// report is published as its turn ends. Merged plans' trees are swept.
type Remote struct {
	name string // the remote: a name such as origin, or a URL
	ws   *Workspace
	// plansHere are the plans whose agent sessions run on this worker,
	// and the commit each plan's work in its run started after, as far as
	// the worker knows.
	plansHere func() (live map[string]bool, since map[string]string)

	// mu serializes the worker's git work on shared trees: a sync of the
	// integration worktree never runs under a merge or a gate there.
	mu     sync.Mutex
	leases map[string]string // plan → the commit its remote branch was last seen at ("" for none)
	swept  string            // the remote's integration branch at the last sweep
}

// NewRemote readies the worker's side of a run over the git remote name
// (a name such as origin, or a URL), in ws.
func NewRemote(ws *Workspace, name string, plansHere func() (live map[string]bool, since map[string]string)) *Remote {
	return &Remote{name: name, ws: ws, plansHere: plansHere, leases: map[string]string{}}
}

// remotePushEvery is how often a session's new commits are pushed.
const remotePushEvery = 2 * time.Second

// hiveBranches is the refspec pattern of hive's branches on a remote: the
// integration branches and the plans' (one glob, since a missing branch
// named alone would fail the fetch).
const hiveBranches = "hive/*"

// Before readies the trees c needs, holding mu; the caller calls the
// returned release when the trees may be touched again.
func (x *Remote) Before(ctx context.Context, c phase.Command) (release func(), err error) {
	x.mu.Lock()
	defer func() {
		if err != nil {
			x.mu.Unlock()
		}
	}()
	ws := x.ws
	if err := ws.repo.FetchBranches(ctx, x.name, hiveBranches); err != nil {
		return nil, err
	}
	if err := x.open(ctx); err != nil {
		return nil, err
	}
	x.sweep(ctx)
	switch c.Type {
	case phase.CmdStartAgent:
		if err := x.syncIntegration(ctx); err != nil {
			return nil, err
		}
		switch {
		case c.Plan == phase.VerifyID: // the verifier reads the integration worktree
		case c.Role == "comb":
			err = x.replayConflict(ctx, c.Plan)
		default:
			err = x.syncPlan(ctx, c.Plan, false)
		}
	case phase.CmdSpotCheck, phase.CmdCheckCommits:
		err = x.syncPlan(ctx, c.Plan, true)
	case phase.CmdMerge:
		if err = x.syncIntegration(ctx); err == nil {
			err = x.syncPlan(ctx, c.Plan, true)
		}
	case phase.CmdGate, phase.CmdVerify:
		err = x.syncIntegration(ctx)
	}
	if err != nil {
		return nil, err
	}
	return x.mu.Unlock, nil
}

// open makes the worker's integration worktree the first time a command
// comes, from the remote's integration branch (which the run's start
// pushed there).
func (x *Remote) open(ctx context.Context) error {
	ws := x.ws
	if ws.integ != nil {
		return nil
	}
	branch := ws.git.IntegrationBranch(ws.phase)
	tip := ws.repo.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return fmt.Errorf("the remote %s has no branch %s: a run's start pushes it there (hive execute-phase %s --backend temporal --git-remote %s)", x.name, branch, ws.phase.Number, x.name)
	}
	if !ws.repo.BranchExists(ctx, branch) {
		if _, err := ws.repo.Git(ctx, "branch", branch, tip); err != nil {
			return err
		}
	}
	in, err := integration.Open(ctx, ws.repo, ws.phase, ws.git, ws.now, ws.say)
	if err != nil {
		return err
	}
	ws.integ = in
	return nil
}

// sweep removes the worktrees (and branches) of this worker's plans whose
// work the remote's integration branch holds, as a local run removes a
// merged plan's: whichever worker merged it, a plan's tree is gone from
// every worker by its next command, or as a session of its ends here. A
// plan whose session runs here keeps its tree (until that session ends),
// and so does one with no commit of its own yet (a retry may find what its
// last attempt left). It looks again only when the integration branch has
// moved or a session it spared has ended. The caller holds mu.
func (x *Remote) sweep(ctx context.Context) {
	in := x.ws.integ
	tip := in.Repo().RefHash(ctx, gitx.RemoteRef(in.Name()))
	if tip == "" || tip == x.swept {
		return
	}
	x.swept = tip
	live, since := x.plansHere()
	for _, p := range x.ws.phase.Plans {
		if _, err := os.Stat(in.PlanDir(p.ID)); err != nil {
			continue
		}
		if live[p.ID] {
			x.swept = "" // look again once it ends
			continue
		}
		own := in.Repo().RefHash(ctx, "refs/heads/"+in.PlanBranch(p.ID))
		if own == "" || own == since[p.ID] || !in.Repo().IsAncestor(ctx, own, tip) {
			continue
		}
		if err := in.RemovePlan(ctx, p.ID); err != nil {
			x.ws.say(p.ID, "remove the merged plan's worktree: "+err.Error())
		}
	}
}

// SweepAfter sweeps as a session ends here, when a sweep spared a tree
// for a session (this one's, maybe, whose plan was merged meanwhile).
func (x *Remote) SweepAfter(ctx context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.swept != "" || x.ws.integ == nil {
		return
	}
	if err := x.ws.repo.FetchBranches(ctx, x.name, hiveBranches); err != nil {
		return // the next command sweeps
	}
	x.sweep(ctx)
}

// Tidy clears this worker's trees of a run that is over, as the worker
// ends: once the run's work was delivered (DeliverRemote deleted the
// remote's integration branch), the integration worktree goes, and so does
// the tree of every plan that holds nothing the remote did not have (the
// delivery deleted the branch of each plan that completed). While the run
// goes on, or when its work stays on a branch (branching phase), nothing
// is touched: the next run of the phase here starts from these trees.
func (x *Remote) Tidy(ctx context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	in := x.ws.integ
	if in == nil || in.Repo().FetchBranches(ctx, x.name, hiveBranches) != nil || in.Repo().RefHash(ctx, gitx.RemoteRef(in.Name())) != "" {
		return
	}
	for _, p := range x.ws.phase.Plans {
		if _, err := os.Stat(in.PlanDir(p.ID)); err != nil {
			continue
		}
		branch := in.PlanBranch(p.ID)
		if in.Repo().RefHash(ctx, gitx.RemoteRef(branch)) != "" {
			continue // it did not complete: a later run goes on from it
		}
		// Commits never pushed (its last push failed) are kept.
		own := in.Repo().RefHash(ctx, "refs/heads/"+branch)
		if own != "" && own != x.leases[p.ID] && !in.Repo().IsAncestor(ctx, own, in.Name()) {
			continue
		}
		if err := in.RemovePlan(ctx, p.ID); err != nil {
			x.ws.say(p.ID, "remove the plan's worktree: "+err.Error())
		}
	}
	if err := worktrees.Remove(ctx, in.Repo(), in.Dir(), in.Name()); err != nil {
		x.ws.say("", "remove the integration worktree: "+err.Error())
		return
	}
	in.RemoveEmptyFolders()
	x.ws.integ = nil
}

// syncIntegration brings the integration worktree to the remote's branch.
func (x *Remote) syncIntegration(ctx context.Context) error {
	in := x.ws.integ
	ig := in.Repo().At(in.Dir())
	if err := ig.AbortMerge(ctx); err != nil {
		return err
	}
	_, err := ig.Git(ctx, "reset", "-q", "--hard", gitx.RemoteRef(in.Name()))
	return err
}

// syncPlan brings plan id's branch (and, with tree, its worktree) to the
// remote's: a branch behind it, or gone another way, is set to it; one
// ahead of it holds this worker's commits not pushed yet, and stays.
func (x *Remote) syncPlan(ctx context.Context, id string, tree bool) error {
	in := x.ws.integ
	branch := in.PlanBranch(id)
	remote := in.Repo().RefHash(ctx, gitx.RemoteRef(branch))
	x.leases[id] = remote
	dir := in.PlanDir(id)
	// A folder there that git does not know (a clone made again at the same
	// place left it) is cleared away by worktrees.Add.
	hasTree := worktrees.Has(ctx, in.Repo(), dir)
	if remote != "" {
		local := in.Repo().RefHash(ctx, "refs/heads/"+branch)
		switch {
		case local == "":
			if _, err := in.Repo().Git(ctx, "branch", branch, remote); err != nil {
				return err
			}
		case local == remote, in.Repo().IsAncestor(ctx, remote, local):
		case hasTree:
			pw := in.Repo().At(dir)
			if err := pw.AbortMerge(ctx); err != nil {
				return err
			}
			if _, err := pw.Git(ctx, "reset", "-q", "--hard", remote); err != nil {
				return err
			}
		default:
			if _, err := in.Repo().Git(ctx, "branch", "-f", branch, remote); err != nil {
				return err
			}
		}
	}
	if tree && !hasTree {
		return worktrees.Add(ctx, in.Repo(), dir, branch, in.Name())
	}
	return nil
}

// replayConflict readies plan id's worktree for its resolver, on whichever
// worker the merge that conflicted ran: the plan's branch as the remote has
// it, with the integration branch as the remote has it merged into it and
// stopped on the conflicts, as a merge leaves them for a local resolver. A
// merge in progress there (this worker's own, against an older integration
// branch) is done again.
func (x *Remote) replayConflict(ctx context.Context, id string) error {
	if err := x.syncPlan(ctx, id, true); err != nil {
		return err
	}
	in := x.ws.integ
	pw := in.Repo().At(in.PlanDir(id))
	if err := pw.AbortMerge(ctx); err != nil {
		return err
	}
	branch := in.PlanBranch(id)
	if in.Repo().IsAncestor(ctx, in.Name(), "refs/heads/"+branch) {
		return nil // resolved already: the resolver finds nothing to do
	}
	_, err := pw.Merge(ctx, in.Name(), fmt.Sprintf("hive: merge %s into %s to resolve conflicts", in.Name(), branch))
	if errors.Is(err, gitx.ErrConflict) {
		err = nil
	}
	return err
}

// publish makes what a session left in its tree reachable from every
// worker before the run hears of it: a resolver's merge, concluded if it
// resolved every file and did not commit; the verifier's report, committed
// on the integration branch and pushed; an executor's commits.
func (x *Remote) publish(ctx context.Context, c phase.Command) error {
	switch {
	case c.Plan == phase.VerifyID:
		return x.publishReport(ctx)
	case c.Role == "comb":
		if err := x.concludeMerge(ctx, c.Plan); err != nil {
			return err
		}
	}
	return x.pushPlan(ctx, c.Plan)
}

// concludeMerge commits the merge in plan id's worktree once no file is
// left unmerged (the resolver was told to commit, and may not have).
func (x *Remote) concludeMerge(ctx context.Context, id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	in := x.ws.integ
	pw := in.Repo().At(in.PlanDir(id))
	if !pw.MergeInProgress(ctx) {
		return nil
	}
	if files, err := pw.Unmerged(ctx); err != nil || len(files) > 0 {
		return err
	}
	return pw.CommitAll(ctx, fmt.Sprintf("hive: resolve conflicts between %s and %s", in.PlanBranch(id), in.Name()))
}

// publishReport commits the verifier's report on the integration branch and
// pushes it, for the worker that reads it (a local run's report is
// committed as it is read).
func (x *Remote) publishReport(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	in := x.ws.integ
	ig := in.Repo().At(in.Dir())
	report := check.VerificationPath(x.ws.phase)
	if _, err := os.Stat(filepath.Join(in.Dir(), filepath.FromSlash(report))); err != nil {
		return nil // no report: the run is told so when it is read
	}
	tip := in.Repo().RefHash(ctx, "refs/heads/"+in.Name())
	if err := ig.CommitAll(ctx, "hive: verification report of phase "+x.ws.phase.Number, report); err != nil {
		return err
	}
	if in.Repo().RefHash(ctx, "refs/heads/"+in.Name()) == tip {
		return nil
	}
	return in.Repo().PushBranch(ctx, x.name, in.Name(), in.Name(), &tip)
}

// pushPlan pushes plan id's branch when it moved since the remote's was
// last seen.
func (x *Remote) pushPlan(ctx context.Context, id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	in := x.ws.integ
	branch := in.PlanBranch(id)
	tip := in.Repo().RefHash(ctx, "refs/heads/"+branch)
	lease := x.leases[id]
	if tip == "" || tip == lease {
		return nil
	}
	if err := in.Repo().PushBranch(ctx, x.name, tip, branch, &lease); err != nil {
		return err
	}
	x.leases[id] = tip
	return nil
}

// After publishes what c wrote: a session's commits, a merge.
func (x *Remote) After(ctx context.Context, c phase.Command, ev phase.Event) phase.Event {
	switch {
	case c.Type == phase.CmdStartAgent:
		if err := x.publish(ctx, c); err != nil {
			x.ws.say(c.Plan, "the session's work stays on this worker: "+err.Error())
		}
	case c.Type == phase.CmdMerge && ev.OK:
		// mu is still held: the merge and its push are one step.
		in := x.ws.integ
		if err := in.Repo().PushBranch(ctx, x.name, in.Name(), in.Name(), nil); err != nil {
			ev.OK, ev.Reason = false, err.Error()
		}
	}
	return ev
}

// PushWhileWorking pushes plan id's commits every period until stop
// closes, so that a worker lost mid-plan loses little.
func (x *Remote) PushWhileWorking(ctx context.Context, id string, stop <-chan struct{}) {
	t := time.NewTicker(remotePushEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			x.pushPlan(ctx, id) // a failure is said when the session ends
		}
	}
}

// PublishRun readies the remote g names for a run of phase and returns the
// commit the run's work starts after: the tip of the remote's integration
// branch, which is pushed there from repo's HEAD when the remote lacks it
// (a branch already there is a run under way, or a phase branch kept).
func PublishRun(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, g integration.Git) (string, error) {
	remote := g.Remote
	branch := g.IntegrationBranch(phase)
	if err := repo.FetchBranches(ctx, remote, hiveBranches); err != nil {
		return "", err
	}
	if tip := repo.RefHash(ctx, gitx.RemoteRef(branch)); tip != "" {
		return tip, nil
	}
	head, err := repo.Head(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: %s has no commit yet: the workers start from your commits, so commit the project (with .planning/) first", integration.ErrDirty, repo.Root)
	}
	if err := integration.CheckClean(ctx, repo); err != nil && !g.AllowDirty {
		return "", err
	}
	none := ""
	if err := repo.PushBranch(ctx, remote, head, branch, &none); err != nil {
		return "", err
	}
	return head, nil
}

// DeliverRemote brings a finished distributed run's work from the remote
// g names to repo's branch (strategy none: a fast-forward, refused by git
// if it would touch the user's changes), and removes the run's branches
// there that are done with: the merged plans', and the integration branch
// once delivered. It returns what the user should know.
func DeliverRemote(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, g integration.Git, snap phase.Snapshot) []string {
	if err := repo.FetchBranches(ctx, g.Remote, hiveBranches); err != nil {
		return []string{err.Error()}
	}
	return deliverFetched(ctx, repo, phase, g, snap)
}

// deliverFetched is DeliverRemote once the remote's hive branches are
// fetched.
func deliverFetched(ctx context.Context, repo *gitx.Repo, ph *plan.Phase, g integration.Git, snap phase.Snapshot) []string {
	remote := g.Remote
	branch := g.IntegrationBranch(ph)
	var notes, gone []string
	for _, p := range snap.Plans {
		if p.State == phase.Complete && !p.Spec.Done {
			gone = append(gone, gitx.PlanBranch(g.Space(ph), p.Spec.ID))
		}
	}
	tip := repo.RefHash(ctx, gitx.RemoteRef(branch))
	switch {
	case tip == "":
		notes = append(notes, fmt.Sprintf("the remote %s has no branch %s: nothing to bring here", remote, branch))
	case g.Strategy() == integration.BranchingPhase:
		notes = append(notes, fmt.Sprintf("the phase's work is on branch %s of %s: merge it when you are ready", branch, remote))
	default:
		err := repo.Locked(ctx, func() error {
			_, err := repo.Git(ctx, "merge", "--ff-only", "-q", "--end-of-options", tip)
			return err
		})
		if err != nil {
			notes = append(notes, fmt.Sprintf("could not fast-forward %s to the phase's work (%v); merge it yourself there: git fetch %s %s && git merge FETCH_HEAD", repo.Root, err, remote, branch))
		} else {
			gone = append(gone, branch)
		}
	}
	if err := repo.DeleteRemoteBranches(ctx, remote, gone...); err != nil {
		notes = append(notes, err.Error())
	}
	return notes
}

// EndRemote ends a phase run of a hive run over a remote, from the tree
// that runs the phase for the run (repo): the merged work comes there
// (DeliverRemote), unless a driver before this one did it before it died
// (the integration branch is gone then), and the run's branches leave the
// remote, all but an integration branch that could not be delivered,
// which stays for the user to merge, as the notes say. One fetch serves
// all three.
func EndRemote(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, g integration.Git, snap phase.Snapshot) []string {
	branch := g.IntegrationBranch(phase)
	if err := repo.FetchBranches(ctx, g.Remote, hiveBranches); err != nil {
		return []string{err.Error()}
	}
	var notes []string
	if repo.RefHash(ctx, gitx.RemoteRef(branch)) != "" {
		notes = deliverFetched(ctx, repo, phase, g, snap)
	}
	if err := clearFetched(ctx, repo, g.Remote, g.Namespace, branch); err != nil {
		notes = append(notes, "remove the run's branches from "+g.Remote+": "+err.Error())
	}
	return notes
}

// ClearRemote deletes the branches of the phase run of namespace from the
// remote once it is over: the briefings, and the branches of plans that
// did not complete (a later attempt of the phase starts from the run's
// worktree, in a namespace of its own, so nothing goes on from them).
func ClearRemote(ctx context.Context, repo *gitx.Repo, remote, namespace string) error {
	if err := repo.FetchBranches(ctx, remote, hiveBranches); err != nil {
		return err
	}
	return clearFetched(ctx, repo, remote, namespace, "")
}

// clearFetched is ClearRemote once the remote's hive branches are fetched,
// keeping keep.
func clearFetched(ctx context.Context, repo *gitx.Repo, remote, namespace, keep string) error {
	out, err := repo.Git(ctx, "for-each-ref", "--format=%(refname)", gitx.RemoteRef("hive/"+namespace+"/"))
	if err != nil {
		return err
	}
	var left []string
	for _, ref := range strings.Fields(out) {
		if branch := strings.TrimPrefix(ref, gitx.RemoteRef("")); branch != keep {
			left = append(left, branch)
		}
	}
	// One deleted since the fetch (delivered just now) is refused as
	// gone, which DeleteRemoteBranches lets be.
	return repo.DeleteRemoteBranches(ctx, remote, left...)
}

// BringMerged fast-forwards repo's tree to what the run of phase merged on
// the remote g names so far: whoever answers a stop for a human (the
// architect, after a challenge) works on the plans merged so far.
func BringMerged(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, g integration.Git) error {
	branch := g.IntegrationBranch(phase)
	if err := repo.FetchBranches(ctx, g.Remote, branch); err != nil {
		return err
	}
	tip := repo.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return nil
	}
	return repo.Locked(ctx, func() error {
		if _, err := repo.Git(ctx, "merge", "--ff-only", "-q", "--end-of-options", tip); err != nil {
			return fmt.Errorf("bring the plans merged so far to the run's worktree: %w", err)
		}
		return nil
	})
}

// publishedFirst are a session's events whose answer reads the plan's
// commits, maybe on another worker: its branch is pushed before they go.
var publishedFirst = map[phase.EventType]bool{
	phase.EvPlanComplete: true, phase.EvPlanFailed: true, phase.EvLimited: true, phase.EvSilent: true,
	phase.EvCheckpoint: true, phase.EvDeviation: true,
}

// Forward hands a session's events to emit in order, from a goroutine of
// its own, pushing the plan's branch before each event in publishedFirst
// (never on the goroutine that routes events: a push waits for mu, which a
// merge holds until its own event is routed). flush waits for the events
// handed so far.
func (x *Remote) Forward(ctx context.Context, c phase.Command, emit func(phase.Event)) (send func(phase.Event), flush func()) {
	id := c.Plan
	var mu sync.Mutex
	var queue []phase.Event
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	closing := false
	go func() {
		defer close(done)
		for {
			mu.Lock()
			batch, last := queue, closing
			queue = nil
			mu.Unlock()
			for _, ev := range batch {
				// The verifier's turn ending is when its report is read.
				if publishedFirst[ev.Type] || c.Plan == phase.VerifyID && ev.Type == phase.EvUsage {
					if err := x.publish(ctx, c); err != nil {
						x.ws.say(id, "publish the session's work: "+err.Error())
					}
				}
				emit(ev)
			}
			if last && len(batch) == 0 {
				return
			}
			if !last {
				<-wake
			}
		}
	}()
	send = func(ev phase.Event) {
		mu.Lock()
		queue = append(queue, ev)
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	flush = func() {
		mu.Lock()
		closing = true
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
		<-done
	}
	return send, flush
}

// RemoteTree readies repo, a worker's clone, for a run whose phase is
// only on the remote (a hive run's phase, which its architect wrote on the
// run's branch): it fetches the run's branches and makes the worker's
// integration worktree of g.Namespace from the remote's integration
// branch, as the run's first command here would; the phase can be read
// there. It returns the worktree's folder.
func RemoteTree(ctx context.Context, repo *gitx.Repo, g integration.Git) (string, error) {
	if g.Remote == "" || g.Namespace == "" {
		return "", fmt.Errorf("a phase on a remote needs the remote and the run's namespace")
	}
	if err := repo.FetchBranches(ctx, g.Remote, hiveBranches); err != nil {
		return "", err
	}
	branch := integration.BranchName(g.Strategy(), g.Namespace)
	tip := repo.RefHash(ctx, gitx.RemoteRef(branch))
	if tip == "" {
		return "", fmt.Errorf("the remote %s has no branch %s: the run's phase is over, or it was never pushed there", g.Remote, branch)
	}
	root, err := g.Root(repo)
	if err != nil {
		return "", err
	}
	tree := filepath.Join(root, g.Namespace, "integration")
	if err := worktrees.Add(ctx, repo, tree, branch, tip); err != nil {
		return "", fmt.Errorf("the run's integration worktree: %w", err)
	}
	ig := repo.At(tree)
	if err := ig.AbortMerge(ctx); err != nil {
		return "", err
	}
	if _, err := ig.Git(ctx, "reset", "-q", "--hard", gitx.RemoteRef(branch)); err != nil {
		return "", err
	}
	return tree, nil
}
