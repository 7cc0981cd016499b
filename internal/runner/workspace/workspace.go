package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner/check"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/planning"
)

// Workspace is the executor of git work: where each plan's agent works
// (the repository, or the plan's worktree), the spot-checks and commit
// look-ups, merges into the integration branch, the post-merge gate, the
// phase's verification, and the delivery of a finished run's work.
type Workspace struct {
	repo  *gitx.Repo
	phase *plan.Phase
	plans map[string]*plan.Plan
	git   integration.Git
	since string // Schedule.Since
	now   func() time.Time
	inbox Inbox
	say   func(plan, text string) // the observer's Note, on the loop's goroutine

	integ *integration.Branch // worktree mode: the integration branch and the plans' worktrees
	// Scope maps each plan to the commit its work in this run starts after
	// (phase.PlanSpec.Since): only later commits are the plan's. The loop
	// sets it as a run starts or resumes, a worker as each command comes.
	Scope map[string]string
	// heads answers the shared tree's commit look-ups from one log kept up
	// to date, not a git log each (see gitx.HeadLog).
	heads *gitx.HeadLog
}

// Inbox takes what the workspace reports back to the run's loop (the
// runner's Inbox): from any goroutine.
type Inbox interface {
	// Send hands an event to the loop.
	Send(ev phase.Event)
	// Note tells the observer something that is not an event.
	Note(plan, text string)
}

// Config is what a run's workspace works on.
type Config struct {
	Repo  *gitx.Repo
	Phase *plan.Phase
	Plans map[string]*plan.Plan // the phase's plans by id
	Git   integration.Git
	// Since is the commit a new run's work starts after (Schedule.Since);
	// "" means the tip it starts from.
	Since string
	Now   func() time.Time
	Inbox Inbox
	Say   func(plan, text string) // the observer's Note, on the loop's goroutine
}

// New makes the workspace of a run: in the shared tree until
// OpenWorktrees opens the integration branch. Close releases it.
func New(c Config) *Workspace {
	return &Workspace{repo: c.Repo, phase: c.Phase, plans: c.Plans, git: c.Git, since: c.Since,
		now: c.Now, inbox: c.Inbox, say: c.Say, heads: c.Repo.NewHeadLog()}
}

// Close releases the shared tree's commit log.
func (w *Workspace) Close() { w.heads.Close() }

// SetBase sets the commit a new run's work starts after, as Config.Since
// does: the tip of a git remote's integration branch (PublishRun).
func (w *Workspace) SetBase(commit string) { w.since = commit }

// InWorktrees reports whether the run works in worktrees: its
// integration branch is open.
func (w *Workspace) InWorktrees() bool { return w.integ != nil }

// Since is the commit plan id's work in this run starts after.
func (w *Workspace) Since(id string) string { return w.Scope[id] }

// PlanCommits are plan id's commits of this run, newest first.
func (w *Workspace) PlanCommits(ctx context.Context, id string) ([]gitx.Commit, error) {
	return w.planCommits(id).PlanCommits(ctx, id, w.Scope[id])
}

// Branches are the integration branch and plan id's branch in worktree
// mode; "" in the shared tree.
func (w *Workspace) Branches(id string) (integration, branch string) {
	if w.integ == nil {
		return "", ""
	}
	return w.integ.Name(), w.integ.PlanBranch(id)
}

// planLog is where the commit look-ups of a plan's tree go: its HEAD, since
// the commit the plan's work started after.
type planLog interface {
	PlanCommits(ctx context.Context, id, since string) ([]gitx.Commit, error)
	HasPlanCommit(ctx context.Context, id, since string) (bool, error)
	CommittedSince(ctx context.Context, id, since string, t time.Time) (bool, error)
}

// headOf is a planLog that asks git each time: a plan's own worktree,
// looked at a few times in its life.
type headOf struct{ *gitx.Repo }

func (h headOf) PlanCommits(ctx context.Context, id, since string) ([]gitx.Commit, error) {
	return h.Repo.PlanCommits(ctx, id, since, "HEAD")
}

func (h headOf) HasPlanCommit(ctx context.Context, id, since string) (bool, error) {
	return h.Repo.HasPlanCommit(ctx, id, since, "HEAD")
}

// planCommits is plan id's planLog: the run's HeadLog in the shared tree,
// its worktree's git otherwise.
func (w *Workspace) planCommits(id string) planLog {
	if w.integ == nil && w.heads != nil {
		return w.heads
	}
	return headOf{w.PlanRepo(id)}
}

// Commands are the command types Workspace carries out.
var Commands = []phase.CommandType{phase.CmdSpotCheck, phase.CmdCheckCommits, phase.CmdMerge, phase.CmdGate, phase.CmdVerify, phase.CmdPlanState}

func (w *Workspace) Execute(ctx context.Context, c phase.Command, snap phase.Snapshot) {
	switch c.Type {
	case phase.CmdSpotCheck:
		p := w.plans[c.Plan]
		repo, committed := w.PlanRepo(c.Plan), w.integ != nil
		claim := &check.Scope{Since: w.Scope[c.Plan], Commits: w.planCommits(c.Plan)}
		go func() {
			ok, reason := false, "the plan file is no longer in the phase folder"
			if p != nil {
				ok, reason = check.Claim(ctx, repo, p, committed, claim)
			}
			w.inbox.Send(phase.Event{Type: phase.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Reason: reason})
		}()
	case phase.CmdCheckCommits:
		commits, since := w.planCommits(c.Plan), w.Scope[c.Plan]
		go func() {
			recent, err := commits.CommittedSince(ctx, c.Plan, since, c.Since)
			if err != nil {
				w.inbox.Note(c.Plan, "look for recent commits: "+err.Error())
			}
			w.inbox.Send(phase.Event{Type: phase.EvCommitsChecked, Plan: c.Plan, Attempt: c.Attempt, OK: recent})
		}()
	case phase.CmdMerge, phase.CmdGate, phase.CmdVerify:
		w.integrate(ctx, c, snap)
	case phase.CmdPlanState:
		w.planSettled(ctx, c, snap)
	}
}

// Finish ends the workspace's part of a run: the integration goroutine
// stops and, when the run finished, its work is delivered: in worktree mode
// merged into (or left on) the user's branch, in the shared tree STATE.md
// and ROADMAP.md written and committed. It returns each plan's commits.
func (w *Workspace) Finish(ctx context.Context, snap phase.Snapshot, finished bool) map[string]int {
	if w.integ != nil {
		w.integ.Close()
	}
	counts := w.commitCounts(ctx, snap)
	switch {
	case !finished:
	case w.integ != nil:
		for _, n := range w.integ.Finish(ctx, snap, w.Scope) {
			w.say("", n)
		}
	default:
		w.commitTracking(ctx, snap)
	}
	return counts
}

// commitCounts counts each plan's commits of this run: on the integration
// branch for a merged plan, on its own branch for one that was not merged,
// in the tree's history without worktrees.
func (w *Workspace) commitCounts(ctx context.Context, snap phase.Snapshot) map[string]int {
	out := map[string]int{}
	logs := map[[2]string]*gitx.PlanIndex{} // one log per scope and branch, however many plans share it
	for _, p := range snap.Plans {
		if p.Spec.Done || w.Scope == nil {
			continue
		}
		ref := "HEAD"
		if w.integ != nil {
			ref = w.integ.Name()
			if b := w.integ.PlanBranch(p.Spec.ID); p.State != phase.Complete && w.repo.BranchExists(ctx, b) {
				ref = b
			}
		}
		key := [2]string{w.Scope[p.Spec.ID], ref}
		ix, ok := logs[key]
		if !ok {
			cs, err := w.repo.RangeCommits(ctx, key[0], ref)
			if err != nil {
				continue
			}
			ix = gitx.IndexPlans(cs)
			logs[key] = ix
		}
		out[p.Spec.ID] = len(ix.For(p.Spec.ID))
	}
	return out
}

// KeepMode runs a resumed run the way it started, with or without
// worktrees, whatever the configuration says now: a run begun in the
// shared tree (or by an older hive) must not have its plans' work left on
// branches nothing merges, and a worktree run must merge to the end.
func (w *Workspace) KeepMode(ctx context.Context, want bool) error {
	switch {
	case want && w.integ == nil:
		if !w.git.Worktrees {
			w.say("", "this run started with worktrees: it goes on with them")
		}
		return w.OpenWorktrees(ctx)
	case !want && w.git.Worktrees:
		w.say("", "this run started in the shared working tree: it goes on there")
	}
	return nil
}

// OpenWorktrees readies worktree mode: the user's tree must hold no
// uncommitted change (the agents would not see it) unless AllowDirty, and
// the integration branch and its worktree are opened.
func (w *Workspace) OpenWorktrees(ctx context.Context) error {
	if w.integ != nil {
		return nil
	}
	if err := integration.CheckClean(ctx, w.repo); err != nil && !w.git.AllowDirty {
		return err
	} else if err != nil {
		w.say("", "running with uncommitted changes (--allow-dirty): the agents work from your last commit and do not see them")
	}
	in, err := integration.Open(w.gitNotes(ctx, ""), w.repo, w.phase, w.git, w.now, w.say)
	if err != nil {
		return err
	}
	w.integ = in
	return nil
}

// PlanRepo is the working tree plan id's agent works in.
func (w *Workspace) PlanRepo(id string) *gitx.Repo {
	if w.integ == nil {
		return w.repo
	}
	return w.repo.At(w.integ.PlanDir(id))
}

// PlanPlace is the folder and branch plan id's agent works in, for a
// checkpoint to show: its worktree and branch, or the repository and its
// current branch in shared-tree mode.
func (w *Workspace) PlanPlace(ctx context.Context, id string) (dir, branch string) {
	if w.integ == nil {
		return w.repo.Root, w.repo.CurrentBranch(ctx)
	}
	return w.integ.PlanDir(id), w.integ.PlanBranch(id)
}

// AgentDir prepares the folder the agent of c works in: the repository in
// shared-tree mode; else the plan's worktree, caught up with the integration
// branch when the agent is to fix what the post-merge gate found.
func (w *Workspace) AgentDir(ctx context.Context, p *plan.Plan, c phase.Command) (string, error) {
	if w.integ == nil {
		return w.repo.Root, nil
	}
	if c := strings.TrimSpace(w.git.Setup.Command); c != "" {
		if _, err := os.Stat(w.integ.PlanDir(p.ID)); os.IsNotExist(err) {
			w.say(p.ID, "readying its worktree (workflow.worktree_setup): "+c) // npm ci may take a minute
		}
	}
	dir, err := w.integ.PreparePlan(w.gitNotes(ctx, p.ID), p, w.git.Setup, w.Scope[p.ID])
	if err != nil {
		return "", err
	}
	if c.Continuation != nil && c.Continuation.Fix != "" && c.Role == "" {
		if err := w.integ.CatchUp(ctx, p.ID); err != nil {
			w.say(p.ID, "bring the plan's branch up to the integration branch: "+err.Error())
		}
	}
	return dir, nil
}

// gitNotes lets git operations under ctx tell the user what they cleared
// away on their own (a stale worktree folder of an earlier clone, a worktree
// left at an old worktree folder): one note each, about plan (or the run,
// for "").
func (w *Workspace) gitNotes(ctx context.Context, plan string) context.Context {
	return worktrees.WithNotes(ctx, func(text string) { w.say(plan, text) })
}

// integrate carries out a merge, a post-merge gate or the verification on
// the integration goroutine (or, without worktrees, on a goroutine of its
// own), and reports the result to the loop.
func (w *Workspace) integrate(ctx context.Context, c phase.Command, snap phase.Snapshot) {
	p := w.plans[c.Plan]
	var job func()
	switch c.Type {
	case phase.CmdMerge:
		job = func() {
			ev := phase.Event{Type: phase.EvMerged, Plan: c.Plan, Attempt: c.Attempt}
			if p == nil || w.integ == nil {
				ev.Reason = "nothing to merge"
			} else {
				res := w.integ.Merge(ctx, p, snap)
				ev.OK, ev.Files, ev.Reason = res.OK, res.Files, res.Reason
			}
			w.inbox.Send(ev)
		}
	case phase.CmdGate:
		job = func() {
			ok, out := check.Gate(ctx, w.WorkDir(), w.git.GateCommand)
			w.inbox.Send(phase.Event{Type: phase.EvGateChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Text: out})
		}
	case phase.CmdVerify:
		if c.After == "report" {
			job = func() { w.inbox.Send(w.readReport(ctx, w.WorkDir())) }
		} else {
			job = func() { w.inbox.Send(w.checkPhase(w.WorkDir())) }
		}
	}
	if w.integ != nil {
		w.integ.Do(job)
		return
	}
	go job()
}

// WorkDir is where the phase's merged work is: the integration worktree,
// or the repository in shared-tree mode.
func (w *Workspace) WorkDir() string {
	if w.integ != nil {
		return w.integ.Dir()
	}
	return w.repo.Root
}

// planSettled tidies up after a plan reaches a final state: a merged plan's
// worktree and branch go; one that ended failed or skipped after it was
// merged (its post-merge gate kept failing) is taken off the integration
// branch.
func (w *Workspace) planSettled(ctx context.Context, c phase.Command, snap phase.Snapshot) {
	if !c.State.Final() {
		return
	}
	if c.State != phase.Complete {
		if p := w.plans[c.Plan]; w.integ != nil && p != nil {
			since := w.Scope[c.Plan]
			w.integ.Do(func() {
				undone, err := w.integ.Unmerge(ctx, p, since, snap)
				switch {
				case err != nil:
					w.inbox.Note(c.Plan, "the plan did not complete, but its merge stays on the integration branch: "+err.Error())
				case undone:
					w.inbox.Note(c.Plan, "the plan did not complete: its merged work was taken off the integration branch (its branch "+w.integ.PlanBranch(c.Plan)+" keeps it)")
				}
			})
		}
		return
	}
	if w.integ != nil {
		w.integ.Do(func() {
			if err := w.integ.RemovePlan(ctx, c.Plan); err != nil {
				w.inbox.Note(c.Plan, "remove the merged plan's worktree: "+err.Error())
			}
		})
	}
}

// commitTracking commits STATE.md and ROADMAP.md at the end of a
// shared-tree run, and nothing else the tree holds.
func (w *Workspace) commitTracking(ctx context.Context, snap phase.Snapshot) {
	if err := commitTracking(ctx, w.repo, w.phase, snap, w.now()); err != nil {
		w.say("", "commit STATE.md and ROADMAP.md: "+err.Error())
	}
}

func commitTracking(ctx context.Context, repo *gitx.Repo, ph *plan.Phase, snap phase.Snapshot, now time.Time) error {
	return repo.Locked(ctx, func() error {
		if err := planning.WriteTracking(repo.Root, ph, snap, nil, "Phase "+ph.Number+" run finished: "+snap.Outcome, now); err != nil {
			return err
		}
		files := planning.ExistingTracking(repo.Root)
		if len(files) == 0 {
			return nil
		}
		return repo.CommitOnly(ctx, fmt.Sprintf("docs(%s): phase run %s", ph.Number, snap.Outcome), files...)
	})
}

// DeliverShared ends a finished run of phase whose workers shared repo's
// tree (a distributed backend's, without a git remote): STATE.md and
// ROADMAP.md written as snap says, and committed.
func DeliverShared(ctx context.Context, repo *gitx.Repo, phase *plan.Phase, snap phase.Snapshot) []string {
	if err := commitTracking(ctx, repo, phase, snap, time.Now()); err != nil {
		return []string{"commit STATE.md and ROADMAP.md: " + err.Error()}
	}
	return nil
}

// DropIntegration removes the integration worktree a run that will not
// happen opened, and its branch unless the branching strategy keeps it.
func (w *Workspace) DropIntegration(ctx context.Context) error {
	in := w.integ
	if in == nil {
		return nil
	}
	w.integ = nil
	return in.Drop(ctx)
}

// Base is the commit the run's work starts from: the integration branch's
// tip in worktree mode, else HEAD; "" in a repository without a commit.
func (w *Workspace) Base(ctx context.Context) (string, error) {
	if w.since != "" {
		return w.since, nil
	}
	ref := "HEAD"
	if w.integ != nil {
		ref = w.integ.Name()
	}
	out, err := w.repo.Git(ctx, "rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		if w.integ == nil {
			return "", nil // no commit yet: the whole history is this run's
		}
		return "", fmt.Errorf("find the start of the run on %s: %w", ref, err)
	}
	return strings.TrimSpace(out), nil
}

// checkPhase checks the phase's must_haves mechanically in dir (seed
// 002): gaps_found with the gaps, or passed, after which the engine may
// have a verifier agent review the rest.
func (w *Workspace) checkPhase(dir string) phase.Event {
	ev := phase.Event{Type: phase.EvVerified, Text: phase.VerifyPassed, Reason: phase.MechanicalOnly}
	if gaps := check.MustHaves(dir, w.phase.Plans); len(gaps) > 0 {
		ev.Text = phase.VerifyGapsFound
		ev.Reason = strings.Join(gaps, "\n") + "\n" + check.GapsCommand(w.phase)
	}
	return ev
}

// readReport reads the verifier's report in dir, and commits it on the
// integration branch: its status is what the engine routes.
func (w *Workspace) readReport(ctx context.Context, dir string) phase.Event {
	ev := phase.Event{Type: phase.EvVerified}
	report := check.VerificationPath(w.phase)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(report)))
	if err != nil {
		ev.Text, ev.Reason = phase.VerifyHumanNeeded, "the verifier wrote no "+report+"; check the phase by hand"
		return ev
	}
	status, body := check.ReportStatus(string(data))
	switch status {
	case phase.VerifyPassed, phase.VerifyHumanNeeded:
		ev.Text, ev.Reason = status, body
	case phase.VerifyGapsFound:
		ev.Text, ev.Reason = status, body+"\n"+check.GapsCommand(w.phase)
	default:
		ev.Text, ev.Reason = phase.VerifyHumanNeeded, fmt.Sprintf("%s has status %q, not passed, human_needed or gaps_found; read it and decide", report, status)
	}
	if w.integ != nil {
		ig := w.repo.At(dir)
		if err := ig.Locked(ctx, func() error {
			return ig.CommitAll(ctx, "hive: verification of phase "+w.phase.Number+": "+status, report)
		}); err != nil {
			w.inbox.Note("", "record "+report+": "+err.Error())
		}
	}
	return ev
}

// MergedSummaries reads, for check.ClaimFrom, the SUMMARY of every plan of
// the phase as the integration branch holds it (nil without one), in one
// git process: a run's start checks them all, and each resume starts
// again.
func (w *Workspace) MergedSummaries(ctx context.Context) check.FileReader {
	if w.integ == nil {
		return nil
	}
	var paths []string
	for _, p := range w.phase.Plans {
		paths = append(paths, p.SummaryPath())
	}
	files, err := w.repo.At(w.integ.Dir()).FilesAt(ctx, "HEAD", paths)
	return func(rels ...string) (map[string][]byte, error) {
		if err != nil {
			return nil, err
		}
		found := map[string][]byte{}
		for _, rel := range rels {
			if data, ok := files[rel]; ok {
				found[rel] = data
			}
		}
		return found, nil
	}
}
