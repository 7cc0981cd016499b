package plans

import (
	"cmp"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/rollover"
	"github.com/hivectl/hive/internal/engine/sched"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// Plan is the engine's record of one plan.
type Plan struct {
	phase.PlanStatus

	Seen        phase.SessionCosts
	ResolveSeen phase.SessionCosts

	Check        phase.SpotCheck     // the spot-check that is out; a resume's failing one restarts the plan
	LastAnswered *phase.Checkpoint   // answered and not yet followed by progress: a restart must carry it
	Answered     []phase.Checkpoint  // every checkpoint or deviation answered in the plan, for continuations
	Continuation *phase.Continuation // for the next start
	AutoRetries  int                 // continuations started after crashes and hangs
	HumanRetried bool                // --yes answered "retry" once already
	PastCeiling  bool                // a retry answered: the next agent may start past the plan's ceiling
	Silence      phase.Silence       // the watchdog's step with the current agent
	LastActive   time.Time
	AgentLive    bool   // the current attempt's process has not been seen to exit
	ExitNote     string // with CheckExit: how the agent ended
	// Permissions are permission requests that arrived while the plan
	// waited at another checkpoint: raised one by one, in arrival order.
	Permissions []*phase.Checkpoint
	Integ       integrate.Plan   // its merges, resolvers and gates
	Guard       work.CallGuard   // what the loop guard saw of the current agent's tool calls
	Roll        rollover.Session // the current session's rollover, beside its occupancy (Context)
	// AnswerAtTurnEnd is an answered checkpoint whose answer goes to the
	// live agent when its turn ends.
	AnswerAtTurnEnd *phase.Checkpoint
	Notes           *work.Report // what the last session that handed over wrote, for every later continuation

	Pos   int  // its position in the spec, and in the graph
	Dirty bool // changed since the last snapshot
}

// New is the record of the plan of spec at position pos, before the run
// starts it: pending, or complete when it was done on disk.
func New(spec phase.PlanSpec, pos int) *Plan {
	p := &Plan{PlanStatus: phase.PlanStatus{Spec: spec, State: phase.Pending}, Pos: pos}
	if spec.Done {
		p.State = phase.Complete
	}
	return p
}

// NewAgent makes p's next attempt current: an agent of it is being
// started at now, with nothing checked, no silence and no exit yet.
func (p *Plan) NewAgent(now time.Time) {
	p.Attempt++
	p.PID = 0
	p.Started = now
	p.AgentLive = true
	p.Check, p.ExitNote = phase.CheckNone, ""
	p.Silence, p.LastActive = phase.Quiet, now
	p.Guard = work.CallGuard{}
	p.PastCeiling = false // the retry it allowed is this agent
	p.Context.Tokens, p.Context.Rolling, p.Roll.AtAnswer, p.AnswerAtTurnEnd = 0, false, false, nil
}

// End ends p's agent, if its process may still run.
func (p *Plan) End(out []phase.Command) []phase.Command {
	if p.AgentLive {
		out = append(out, p.Stop())
		p.AgentLive = false
	}
	return out
}

// Stop is the command that ends p's current agent.
func (p *Plan) Stop() phase.Command {
	return phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID}
}

// Interrupt ends the turn of p's live agent now, before its session
// closes (Command.Interrupt): what stops for the budget or a guard spends
// no more than the turn in flight.
func (p *Plan) Interrupt(out []phase.Command, why string) []phase.Command {
	if p.AgentLive {
		c := p.Stop()
		c.Interrupt, c.Reason = true, why
		out = append(out, c)
		p.AgentLive = false
	}
	return out
}

// SpotCheck asks the disk what p's agent achieved, for the reason why.
func (p *Plan) SpotCheck(out []phase.Command, why phase.SpotCheck) []phase.Command {
	p.Check = why
	return append(out, phase.Command{Type: phase.CmdSpotCheck, Plan: p.Spec.ID, Attempt: p.Attempt, After: string(why)})
}

// AtBoundary reports whether p's live agent works on its tasks, with
// nothing of it being checked: where it may be asked to hand over.
func (p *Plan) AtBoundary() bool {
	return p.State == phase.Running && p.Stage == phase.StageWork && p.Check == phase.CheckNone && p.AgentLive
}

// Running reports whether p is running: not waiting at a checkpoint, nor
// held by the budget.
func (p *Plan) Running() bool { return p.State == phase.Running && p.Stage != phase.StageHeld }

// AddTurn counts a turn's usage into p's spend, and its resolvers' when a
// resolver spent it: tokens spent count whichever attempt spent them, even
// one already replaced. It returns the turn's cost and its CLI's figure.
func (p *Plan) AddTurn(ev phase.Event) (usd, cli float64) {
	usd, cli = budget.AddTurn(&p.Spend, &p.Seen, ev)
	if p.Integ.Resolver(ev.Attempt) {
		budget.AddTurn(&p.ResolveSpend, &p.ResolveSeen, ev)
	}
	return usd, cli
}

// Progressed takes p's agent's PROGRESS at now.
func (p *Plan) Progressed(ev phase.Event, now time.Time) {
	if ev.Task > p.TasksDone {
		p.TasksDone = ev.Task
	}
	p.Progress = ev.Text
	p.LastAnswered = nil // the agent has moved past the answer
	p.Silence, p.LastActive = phase.Quiet, now
}

// Silent handles an agent that printed nothing for timeouts.stall: ping it
// (a live session of a team), then look at its commits, then kill it
// (seed 000 §2.7).
func (p *Plan) Silent(out []phase.Command, team bool, ev phase.Event) []phase.Command {
	if p.Check != phase.CheckNone {
		return out
	}
	switch p.Silence {
	case phase.Quiet:
		p.Silence = phase.Pinged
		if team && p.AgentLive {
			return append(out, phase.Command{Type: phase.CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: phase.MsgPing, Text: ev.Text})
		}
		return p.Silent(out, team, ev)
	case phase.Pinged:
		p.Silence = phase.CheckingCommits
		return append(out, phase.Command{Type: phase.CmdCheckCommits, Plan: p.Spec.ID, Attempt: p.Attempt, Since: p.LastActive})
	}
	return out
}

// CommitsChecked takes the look at a silent agent's commits (ok: it committed
// recently) at now: it is left to work, or killed, stalled; who names it
// in the kill's reason ("": an executor).
func (p *Plan) CommitsChecked(out []phase.Command, ok bool, now time.Time, who string) []phase.Command {
	if p.Silence != phase.CheckingCommits {
		return out
	}
	if ok {
		if who == "" {
			p.Silence, p.LastActive = phase.Quiet, now
			out = append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: "quiet, but committing: left to work"})
		}
		return out
	}
	p.Silence = phase.Stalled
	c := p.Stop()
	c.Kill, c.Reason = true, "stalled: no output and no commits since "+p.LastActive.UTC().Format(time.RFC3339)
	if who != "" {
		c.Reason = who + " stalled"
	}
	return append(out, c)
}

// Called applies the loop guard g to one tool call of p's agent at now:
// what the guard saw is told to a live agent of a team, or noted for one
// that cannot be told (a one-shot session: the next step interrupts it);
// stop says why the agent is to be stopped, if it is.
func (p *Plan) Called(out []phase.Command, g work.LoopGuard, team bool, ev phase.Event, now time.Time) ([]phase.Command, string) {
	p.Silence, p.LastActive = phase.Quiet, now
	tell, stop := p.Guard.Call(g, ev.Tool, ev.Text, "report PLAN FAILED with what blocks you")
	switch {
	case stop != "":
		return out, stop
	case tell != "" && team && p.AgentLive:
		return append(out, phase.Command{Type: phase.CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: phase.MsgLoop, Text: tell}), ""
	case tell != "":
		return append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: "loop guard: " + tell}), ""
	}
	return out, ""
}

// Waiting handles an event of the agent of p while p waits at a
// checkpoint: it returns what to say, and a permission request to raise
// (held until the open checkpoint is answered).
func (p *Plan) Waiting(ev phase.Event) ([]phase.Command, *phase.Checkpoint) {
	switch ev.Type {
	case phase.EvAgentStarted:
		p.PID = ev.PID
	case phase.EvCheckpoint:
		if ev.Checkpoint != nil && ev.Checkpoint.Type == "permission" {
			cp := *ev.Checkpoint
			return nil, &cp
		}
	case phase.EvAgentExited:
		p.AgentLive = false
		p.Permissions = nil // their requests ended with the process
		if !p.Open.Standalone {
			// Seed 000 §5.1: the executor died idle at its checkpoint; the
			// answer will go to a continuation built from the disk and the
			// checkpoint message already received.
			p.Open.Standalone = true
			return []phase.Command{{Type: phase.CmdNote, Plan: p.Spec.ID, Text: "the agent ended while waiting; the answer will start a continuation"}}, nil
		}
	}
	return nil, nil // an agent waiting for an answer has nothing else to say
}

// Published is the read-only copy of p that snapshots share until p
// changes: copying every plan for every snapshot made a 1,000-plan run
// spend most of its time in the garbage collector.
func (p *Plan) Published() *phase.PlanStatus {
	// Only what a snapshot shows: the rest is the engine's bookkeeping.
	// Commits is replaced, never changed in place, so it can be shared.
	c := new(phase.PlanStatus)
	*c = p.PlanStatus
	if p.Open != nil {
		cp := *p.Open
		c.Open = &cp
	}
	return c
}

// MarkDirty notes the plans an event may have changed: its own plan and
// every plan a command names (a plan never changes state without one);
// all of them after run-started and resumed.
func MarkDirty(list []*Plan, byID map[string]*Plan, ev phase.Event, cmds []phase.Command) {
	if ev.Type == phase.EvRunStarted || ev.Type == phase.EvResumed {
		for _, p := range list {
			p.Dirty = true
		}
		return
	}
	if p := byID[ev.Plan]; p != nil {
		p.Dirty = true
	}
	for _, c := range cmds {
		if p := byID[c.Plan]; p != nil {
			p.Dirty = true
		}
	}
}

// Outcome is the outcome of a run whose plans are final: complete, or
// gaps when the phase verification (v) found them; failed when a plan
// failed or was skipped.
func Outcome(list []*Plan, v *phase.Verification) string {
	for _, p := range list {
		if p.State != phase.Complete {
			return phase.OutcomeFailed
		}
	}
	if v != nil && v.Status == phase.VerifyGapsFound {
		return phase.OutcomeGaps
	}
	return phase.OutcomeComplete
}

// Record is p as plain data, for the engine's export.
func (p *Plan) Record() phase.PlanRecord {
	r := phase.PlanRecord{ID: p.Spec.ID, State: p.State, Attempt: p.Attempt, PID: p.PID, TasksDone: p.TasksDone, Progress: p.Progress,
		Reason: p.Reason, Commits: p.Commits, Started: p.Started, Stage: p.Stage, Finished: p.Finished, Report: p.Report,
		Resolved: p.Resolved, Spend: p.Spend, Resolves: p.Resolves, ResolveSpend: p.ResolveSpend, Seen: p.Seen, ResolveSeen: p.ResolveSeen,
		Check: p.Check, Answered: p.Answered, Continuation: p.Continuation,
		AutoRetries: p.AutoRetries, HumanRetried: p.HumanRetried, PastCeiling: p.PastCeiling, Silence: p.Silence, LastActive: p.LastActive,
		AgentLive: p.AgentLive, ExitNote: p.ExitNote, Rung: p.Rung, Guard: p.Guard.Clone(),
		Context: p.Context, RollBy: p.Roll.By, RollAtAnswer: p.Roll.AtAnswer, Notes: p.Notes, AnswerAtTurnEnd: p.AnswerAtTurnEnd}
	if p.Open != nil {
		r.Open = p.Open.Copy()
	}
	if p.LastAnswered != nil {
		r.LastAnswered = p.LastAnswered.Copy()
	}
	for _, cp := range p.Permissions {
		r.Permissions = append(r.Permissions, *cp.Copy())
	}
	p.Integ.Record(&r)
	return r
}

// Restore puts p, the plan at position i, in the state r records.
func (p *Plan) Restore(i int, r phase.PlanRecord) error {
	if r.ID != p.Spec.ID {
		return fmt.Errorf("restore: plan record %d is %s, the spec's plan is %s", i, r.ID, p.Spec.ID)
	}
	p.State, p.Attempt, p.PID, p.TasksDone, p.Progress, p.Reason = r.State, r.Attempt, r.PID, r.TasksDone, r.Progress, r.Reason
	p.Commits, p.Started, p.Stage, p.Finished, p.Open, p.Report = r.Commits, r.Started, r.Stage, r.Finished, r.Open, r.Report
	p.Resolved, p.Spend, p.Resolves, p.ResolveSpend, p.Seen, p.ResolveSeen = r.Resolved, r.Spend, r.Resolves, r.ResolveSpend, r.Seen, r.ResolveSeen
	p.Check, p.LastAnswered, p.Answered, p.Continuation = r.Check, r.LastAnswered, r.Answered, r.Continuation
	p.AutoRetries, p.HumanRetried, p.PastCeiling, p.Silence, p.LastActive = r.AutoRetries, r.HumanRetried, r.PastCeiling, r.Silence, r.LastActive
	p.AgentLive, p.ExitNote, p.Rung, p.Guard, p.Integ = r.AgentLive, r.ExitNote, r.Rung, r.Guard.Clone(), integrate.Restore(r)
	p.Context, p.Roll, p.Notes = r.Context, rollover.Session{By: r.RollBy, AtAnswer: r.RollAtAnswer}, r.Notes
	p.AnswerAtTurnEnd = r.AnswerAtTurnEnd
	p.Permissions = nil
	for _, cp := range r.Permissions {
		p.Permissions = append(p.Permissions, cp.Copy())
	}
	return nil
}

// Stops reports whether cmds stop the agent of plan's attempt.
func Stops(cmds []phase.Command, plan string, attempt int) bool {
	for _, c := range cmds {
		if c.Type == phase.CmdStopAgent && c.Plan == plan && c.Attempt == attempt {
			return true
		}
	}
	return false
}

// SilenceRepeat is how long after a silence report the next one may come
// while the silence lasts, for timeouts.stall (0: 5 minutes): the
// watchdog's steps (ping, a look at the commits, a kill) are that far
// apart.
func SilenceRepeat(stall time.Duration) time.Duration {
	if stall <= 0 {
		stall = 5 * time.Minute
	}
	return min(stall, 30*time.Second)
}

// AnyRunning reports whether a plan of list is running (not waiting at a
// checkpoint, nor held by the budget). It walks the plans, which is fine:
// it is asked only while a checkpoint is open.
func AnyRunning(list []*Plan) bool {
	for _, p := range list {
		if p.Running() {
			return true
		}
	}
	return false
}

// WorkLeft reports whether any plan of list is still to be done.
func WorkLeft(list []*Plan) bool {
	for _, p := range list {
		if !p.State.Final() {
			return true
		}
	}
	return false
}

// Statuses are the plans of list as a snapshot shows them, in order.
func Statuses(list []*Plan) func(yield func(*phase.PlanStatus) bool) {
	return func(yield func(*phase.PlanStatus) bool) {
		for _, p := range list {
			if !yield(&p.PlanStatus) {
				return
			}
		}
	}
}

// FitsSharedTree reports whether p can run in one working tree beside the
// plans of list that run (running of them): their files must not overlap,
// and a plan that declares no files could touch anything, so it runs
// alone.
func FitsSharedTree(p *Plan, list []*Plan, running int) bool {
	if running == 0 {
		return true
	}
	if len(p.Spec.Files) == 0 {
		return false
	}
	for _, q := range list {
		if q.State != phase.Running && q.State != phase.Waiting { // a waiting plan still owns its half-done files
			continue
		}
		if len(q.Spec.Files) == 0 || sched.Overlaps(p.Spec.Files, q.Spec.Files) {
			return false
		}
	}
	return true
}

// Resumed is what a resume does with a plan that was running or waiting
// when the previous process stopped.
type Resumed int

// What a resume does.
const (
	Left       Resumed = iota // nothing: the plan was neither running nor waiting
	MergeAgain                // it was being integrated: merging is idempotent, so merge again, and the gate runs again
	AskAgain                  // it waited at its checkpoint: show it again; the answer goes to a continuation
	Checked                   // its agent worked: the disk decides what it achieved (a spot-check is out)
)

// Resume ends, after a resume, the agent of p that the previous process
// left (it may have outlived it), and says what follows.
func (p *Plan) Resume(out []phase.Command) ([]phase.Command, Resumed) {
	switch {
	case p.State == phase.Running && p.Stage != phase.StageWork:
		p.Integ.Again()
		return p.End(out), MergeAgain
	case p.State == phase.Waiting:
		// The agent is gone with the old process.
		out = append(out, p.Stop())
		p.AgentLive = false
		p.Open.Standalone = true
		return out, AskAgain
	case p.State == phase.Running:
		out = append(out, p.Stop())
		p.AgentLive = false
		return p.SpotCheck(out, phase.CheckResume), Checked
	}
	return out, Left
}

// Restart puts p, running, back to pending for a new attempt, whose
// continuation carries the answer its agent had not yet gone on from.
func (p *Plan) Restart(reason string) {
	p.Continuation = &phase.Continuation{Reason: reason}
	if cp := cmp.Or(p.AnswerAtTurnEnd, p.LastAnswered); cp != nil {
		p.Continuation.Checkpoint = cp.Copy()
	}
	p.State = phase.Pending
	p.Check, p.AgentLive, p.AnswerAtTurnEnd = phase.CheckNone, false, nil
}

// Start makes p's first or next attempt current at now, from its first
// task (the agent skips what is committed), and returns the continuation
// it starts with, if any, with every answer given in the plan.
func (p *Plan) Start(now time.Time) *phase.Continuation {
	p.NewAgent(now)
	p.TasksDone = 0
	p.Progress = ""
	c := checkpoints.WithAnswers(p.Continuation, p.Answered, p.Notes)
	p.Continuation = nil
	return c
}

// Publish refreshes published, the copies of list's plans that the last
// snapshot handed out, where a plan changed since, and returns the copies
// for a new snapshot.
func Publish(list []*Plan, published []*phase.PlanStatus) []*phase.PlanStatus {
	if len(published) != len(list) {
		published = make([]*phase.PlanStatus, len(list))
	}
	for i, p := range list {
		if published[i] == nil || p.Dirty {
			published[i] = p.Published()
			p.Dirty = false
		}
	}
	return published
}

// AllComplete reports whether every plan of list is complete.
func AllComplete(list []*Plan) bool {
	for _, p := range list {
		if p.State != phase.Complete {
			return false
		}
	}
	return true
}

// Slots counts the plans of list that hold a slot: running, or waiting at
// a checkpoint.
func Slots(list []*Plan) int {
	n := 0
	for _, p := range list {
		if p.State == phase.Running || p.State == phase.Waiting {
			n++
		}
	}
	return n
}

// Completed takes p's agent's PLAN COMPLETE (ev) and asks the disk to
// check it. The turn that said it has ended, and nothing more goes to
// this session (a failed spot-check starts a new attempt): it is ended now
// rather than once the disk is checked (and, with worktrees, merged), so
// it holds no process meanwhile.
func (p *Plan) Completed(out []phase.Command, ev phase.Event) []phase.Command {
	if p.Check != phase.CheckNone {
		return out
	}
	p.Commits = append([]string(nil), ev.Commits...)
	return p.SpotCheck(p.End(out), phase.CheckComplete)
}

// Reported keeps a copy of the HIVE_REPORT of p's agent (ev's) and, when
// p's session was asked for its notes, those notes, which the next
// session gets; it returns the copy.
func (p *Plan) Reported(ev phase.Event) *work.Report {
	r := *ev.Report
	if p.Context.Rolling {
		notes := r
		p.Notes = &notes // the notes asked for: the next session gets them
	}
	return &r
}

// Compacted notes a compaction that the CLI of p's current agent (ev's
// attempt) made on its own.
func (p *Plan) Compacted(ev phase.Event) []phase.Command {
	if ev.Attempt != p.Attempt {
		return nil
	}
	return []phase.Command{rollover.Compacted(&p.Context, p.Spec.ID, ev)}
}

// CheckFailed says why p failed the spot-check of ev, and whether its
// agent crashed (it ended without PLAN COMPLETE), after which it may get
// a continuation.
func (p *Plan) CheckFailed(ev phase.Event, why phase.SpotCheck) (reason string, crashed bool) {
	reason = "spot-check failed: " + ev.Reason
	crashed = why == phase.CheckExit
	if crashed {
		reason = p.ExitNote + "; " + reason
	}
	return reason, crashed
}
