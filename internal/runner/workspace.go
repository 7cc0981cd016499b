package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
)

// workspace is the executor of git work: where each plan's agent works
// (the repository, or the plan's worktree), the spot-checks and commit
// look-ups, merges into the integration branch, the post-merge gate, the
// phase's verification, and the delivery of a finished run's work.
type workspace struct {
	repo  *gitx.Repo
	phase *plan.Phase
	plans map[string]*plan.Plan
	git   Git
	since string // Schedule.Since
	now   func() time.Time
	inbox Inbox
	say   func(plan, text string) // the observer's Note, on the loop's goroutine

	integ *integration // worktree mode: the integration branch and the plans' worktrees
	// scope maps each plan to the commit its work in this run starts after
	// (engine.PlanSpec.Since): only later commits are the plan's.
	scope map[string]string
	// heads answers the shared tree's commit look-ups from one log kept up
	// to date, not a git log each (see gitx.HeadLog).
	heads *gitx.HeadLog
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
func (w *workspace) planCommits(id string) planLog {
	if w.integ == nil && w.heads != nil {
		return w.heads
	}
	return headOf{w.planRepo(id)}
}

// workCommands are the command types workspace carries out.
var workCommands = []engine.CommandType{engine.CmdSpotCheck, engine.CmdCheckCommits, engine.CmdMerge, engine.CmdGate, engine.CmdVerify, engine.CmdPlanState}

func (w *workspace) Execute(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	switch c.Type {
	case engine.CmdSpotCheck:
		p := w.plans[c.Plan]
		repo, committed := w.planRepo(c.Plan), w.integ != nil
		claim := &claimScope{since: w.scope[c.Plan], commits: w.planCommits(c.Plan)}
		go func() {
			ok, reason := false, "the plan file is no longer in the phase folder"
			if p != nil {
				ok, reason = spotCheck(ctx, repo, p, committed, claim)
			}
			w.inbox.Send(engine.Event{Type: engine.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Reason: reason})
		}()
	case engine.CmdCheckCommits:
		commits, since := w.planCommits(c.Plan), w.scope[c.Plan]
		go func() {
			recent, err := commits.CommittedSince(ctx, c.Plan, since, c.Since)
			if err != nil {
				w.inbox.Note(c.Plan, "look for recent commits: "+err.Error())
			}
			w.inbox.Send(engine.Event{Type: engine.EvCommitsChecked, Plan: c.Plan, Attempt: c.Attempt, OK: recent})
		}()
	case engine.CmdMerge, engine.CmdGate, engine.CmdVerify:
		w.integrate(ctx, c, snap)
	case engine.CmdPlanState:
		w.planSettled(ctx, c, snap)
	}
}

// finish ends the workspace's part of a run: the integration goroutine
// stops and, when the run finished, its work is delivered: in worktree mode
// merged into (or left on) the user's branch, in the shared tree STATE.md
// and ROADMAP.md written and committed. It returns each plan's commits.
func (w *workspace) finish(ctx context.Context, snap engine.Snapshot, finished bool) map[string]int {
	if w.integ != nil {
		w.integ.close()
	}
	counts := w.commitCounts(ctx, snap)
	switch {
	case !finished:
	case w.integ != nil:
		for _, n := range w.integ.finish(ctx, snap, w.scope) {
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
func (w *workspace) commitCounts(ctx context.Context, snap engine.Snapshot) map[string]int {
	out := map[string]int{}
	logs := map[[2]string]*gitx.PlanIndex{} // one log per scope and branch, however many plans share it
	for _, p := range snap.Plans {
		if p.Spec.Done || w.scope == nil {
			continue
		}
		ref := "HEAD"
		if w.integ != nil {
			ref = w.integ.branch
			if b := w.integ.planBranch(p.Spec.ID); p.State != engine.Complete && w.repo.BranchExists(ctx, b) {
				ref = b
			}
		}
		key := [2]string{w.scope[p.Spec.ID], ref}
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

// keepMode runs a resumed run the way it started, with or without
// worktrees, whatever the configuration says now: a run begun in the
// shared tree (or by an older hive) must not have its plans' work left on
// branches nothing merges, and a worktree run must merge to the end.
func (w *workspace) keepMode(ctx context.Context, want bool) error {
	switch {
	case want && w.integ == nil:
		if !w.git.Worktrees {
			w.say("", "this run started with worktrees: it goes on with them")
		}
		return w.openWorktrees(ctx)
	case !want && w.git.Worktrees:
		w.say("", "this run started in the shared working tree: it goes on there")
	}
	return nil
}

// openWorktrees readies worktree mode: the user's tree must hold no
// uncommitted change (the agents would not see it) unless AllowDirty, and
// the integration branch and its worktree are opened.
func (w *workspace) openWorktrees(ctx context.Context) error {
	if w.integ != nil {
		return nil
	}
	if err := CheckClean(ctx, w.repo); err != nil && !w.git.AllowDirty {
		return err
	} else if err != nil {
		w.say("", "running with uncommitted changes (--allow-dirty): the agents work from your last commit and do not see them")
	}
	in, err := openIntegration(w.gitNotes(ctx, ""), w.repo, w.phase, w.git, w.now, w.say)
	if err != nil {
		return err
	}
	w.integ = in
	return nil
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
		if !isOwnFile(f) { // hive's own views are never the user's changes
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

// planRepo is the working tree plan id's agent works in.
func (w *workspace) planRepo(id string) *gitx.Repo {
	if w.integ == nil {
		return w.repo
	}
	return w.repo.At(w.integ.planDir(id))
}

// planPlace is the folder and branch plan id's agent works in, for a
// checkpoint to show: its worktree and branch, or the repository and its
// current branch in shared-tree mode.
func (w *workspace) planPlace(ctx context.Context, id string) (dir, branch string) {
	if w.integ == nil {
		return w.repo.Root, w.repo.CurrentBranch(ctx)
	}
	return w.integ.planDir(id), w.integ.planBranch(id)
}

// agentDir prepares the folder the agent of c works in: the repository in
// shared-tree mode; else the plan's worktree, caught up with the integration
// branch when the agent is to fix what the post-merge gate found.
func (w *workspace) agentDir(ctx context.Context, p *plan.Plan, c engine.Command) (string, error) {
	if w.integ == nil {
		return w.repo.Root, nil
	}
	if c := strings.TrimSpace(w.git.Setup.Command); c != "" {
		if _, err := os.Stat(w.integ.planDir(p.ID)); os.IsNotExist(err) {
			w.say(p.ID, "readying its worktree (workflow.worktree_setup): "+c) // npm ci may take a minute
		}
	}
	dir, err := w.integ.preparePlan(w.gitNotes(ctx, p.ID), p, w.git.Setup, w.scope[p.ID])
	if err != nil {
		return "", err
	}
	if c.Continuation != nil && c.Continuation.Fix != "" && c.Role == "" {
		if err := w.integ.catchUp(ctx, p.ID); err != nil {
			w.say(p.ID, "bring the plan's branch up to the integration branch: "+err.Error())
		}
	}
	return dir, nil
}

// gitNotes lets git operations under ctx tell the user what they cleared
// away on their own (a stale worktree folder of an earlier clone, a worktree
// left at an old worktree folder): one note each, about plan (or the run,
// for "").
func (w *workspace) gitNotes(ctx context.Context, plan string) context.Context {
	return gitx.WithNotes(ctx, func(text string) { w.say(plan, text) })
}

// integrate carries out a merge, a post-merge gate or the verification on
// the integration goroutine (or, without worktrees, on a goroutine of its
// own), and reports the result to the loop.
func (w *workspace) integrate(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	p := w.plans[c.Plan]
	var job func()
	switch c.Type {
	case engine.CmdMerge:
		job = func() {
			ev := engine.Event{Type: engine.EvMerged, Plan: c.Plan, Attempt: c.Attempt}
			if p == nil || w.integ == nil {
				ev.Reason = "nothing to merge"
			} else {
				res := w.integ.merge(ctx, p, snap)
				ev.OK, ev.Files, ev.Reason = res.ok, res.files, res.reason
			}
			w.inbox.Send(ev)
		}
	case engine.CmdGate:
		job = func() {
			ok, out := runGate(ctx, w.workDir(), w.git.GateCommand)
			w.inbox.Send(engine.Event{Type: engine.EvGateChecked, Plan: c.Plan, Attempt: c.Attempt, OK: ok, Text: out})
		}
	case engine.CmdVerify:
		if c.After == "report" {
			job = func() { w.inbox.Send(w.readReport(ctx, w.workDir())) }
		} else {
			job = func() { w.inbox.Send(w.checkPhase(w.workDir())) }
		}
	}
	if w.integ != nil {
		w.integ.do(job)
		return
	}
	go job()
}

// workDir is where the phase's merged work is: the integration worktree,
// or the repository in shared-tree mode.
func (w *workspace) workDir() string {
	if w.integ != nil {
		return w.integ.dir
	}
	return w.repo.Root
}

// planSettled tidies up after a plan reaches a final state: a merged plan's
// worktree and branch go; one that ended failed or skipped after it was
// merged (its post-merge gate kept failing) is taken off the integration
// branch.
func (w *workspace) planSettled(ctx context.Context, c engine.Command, snap engine.Snapshot) {
	if !c.State.Final() {
		return
	}
	if c.State != engine.Complete {
		if p := w.plans[c.Plan]; w.integ != nil && p != nil {
			since := w.scope[c.Plan]
			w.integ.do(func() {
				undone, err := w.integ.unmerge(ctx, p, since, snap)
				switch {
				case err != nil:
					w.inbox.Note(c.Plan, "the plan did not complete, but its merge stays on the integration branch: "+err.Error())
				case undone:
					w.inbox.Note(c.Plan, "the plan did not complete: its merged work was taken off the integration branch (its branch "+w.integ.planBranch(c.Plan)+" keeps it)")
				}
			})
		}
		return
	}
	if w.integ != nil {
		w.integ.do(func() {
			if err := w.integ.removePlan(ctx, c.Plan); err != nil {
				w.inbox.Note(c.Plan, "remove the merged plan's worktree: "+err.Error())
			}
		})
	}
}

// commitTracking commits STATE.md and ROADMAP.md at the end of a
// shared-tree run, and nothing else the tree holds.
func (w *workspace) commitTracking(ctx context.Context, snap engine.Snapshot) {
	if err := commitTracking(ctx, w.repo, w.phase, snap, w.now()); err != nil {
		w.say("", "commit STATE.md and ROADMAP.md: "+err.Error())
	}
}

func commitTracking(ctx context.Context, repo *gitx.Repo, ph *plan.Phase, snap engine.Snapshot, now time.Time) error {
	return repo.Locked(ctx, func() error {
		if err := writeTracking(repo.Root, ph, snap, nil, "Phase "+ph.Number+" run finished: "+snap.Outcome, now); err != nil {
			return err
		}
		files := existing(repo.Root, TrackingFiles)
		if len(files) == 0 {
			return nil
		}
		return repo.CommitOnly(ctx, fmt.Sprintf("docs(%s): phase run %s", ph.Number, snap.Outcome), files...)
	})
}

// DeliverShared ends a finished run whose workers shared o's tree (a
// distributed backend's, without a git remote): STATE.md and ROADMAP.md
// written as snap says, and committed.
func DeliverShared(ctx context.Context, o Options, snap engine.Snapshot) []string {
	if err := commitTracking(ctx, o.Repo, o.Phase, snap, time.Now()); err != nil {
		return []string{"commit STATE.md and ROADMAP.md: " + err.Error()}
	}
	return nil
}

func baseName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// dropIntegration removes the integration worktree a run that will not
// happen opened, and its branch unless the branching strategy keeps it.
func (w *workspace) dropIntegration(ctx context.Context) error {
	in := w.integ
	if in == nil {
		return nil
	}
	w.integ = nil
	in.close()
	del := in.branch
	if in.strategy == BranchingPhase {
		del = ""
	}
	return in.repo.RemoveWorktree(ctx, in.dir, del)
}

// base is the commit the run's work starts from: the integration branch's
// tip in worktree mode, else HEAD; "" in a repository without a commit.
func (w *workspace) base(ctx context.Context) (string, error) {
	if w.since != "" {
		return w.since, nil
	}
	ref := "HEAD"
	if w.integ != nil {
		ref = w.integ.branch
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
func (w *workspace) checkPhase(dir string) engine.Event {
	ev := engine.Event{Type: engine.EvVerified, Text: engine.VerifyPassed, Reason: engine.MechanicalOnly}
	if gaps := checkMustHaves(dir, w.phase.Plans); len(gaps) > 0 {
		ev.Text = engine.VerifyGapsFound
		ev.Reason = strings.Join(gaps, "\n") + "\n" + gapsCommand(w.phase)
	}
	return ev
}

// readReport reads the verifier's report in dir, and commits it on the
// integration branch: its status is what the engine routes.
func (w *workspace) readReport(ctx context.Context, dir string) engine.Event {
	ev := engine.Event{Type: engine.EvVerified}
	report := verificationPath(w.phase)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(report)))
	if err != nil {
		ev.Text, ev.Reason = engine.VerifyHumanNeeded, "the verifier wrote no "+report+"; check the phase by hand"
		return ev
	}
	status, body := reportStatus(string(data))
	switch status {
	case engine.VerifyPassed, engine.VerifyHumanNeeded:
		ev.Text, ev.Reason = status, body
	case engine.VerifyGapsFound:
		ev.Text, ev.Reason = status, body+"\n"+gapsCommand(w.phase)
	default:
		ev.Text, ev.Reason = engine.VerifyHumanNeeded, fmt.Sprintf("%s has status %q, not passed, human_needed or gaps_found; read it and decide", report, status)
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

// runGate runs the post-merge gate command in dir. The command is the
// user's own configuration, never text from a plan or an agent.
func runGate(ctx context.Context, dir, command string) (bool, string) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return true, ""
	}
	text := clipLines(string(out), 60)
	return false, fmt.Sprintf("$ %s\n%s\n(%v)", command, text, err)
}
