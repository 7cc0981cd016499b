package engine

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/engine/active"
	"github.com/hivectl/hive/internal/engine/attend"
	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/limits"
	"github.com/hivectl/hive/internal/engine/pause"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/engine/sched"
	"github.com/hivectl/hive/internal/engine/verify"
	"github.com/hivectl/hive/internal/phase"
)

// Engine is the state machine. It is not safe for concurrent use: one
// goroutine (the runner) owns it.
type Engine struct {
	waits    limits.Wait // the run's wait for its provider's limit to pass, if any
	spec     phase.RunSpec
	plans    []*plans.Plan // in spec order
	byID     map[string]*plans.Plan
	started  bool
	finished bool
	resumes  int
	now      time.Time
	// rules is the engine version whose decisions the run follows: the
	// version its run-started event named, then its latest resume's. A
	// journal replays into the decisions it recorded, whichever hive
	// replays it; a run resumed by a newer hive follows that hive's.
	rules int

	running int
	graph   *sched.Graph // the plans' dependencies, waves and ready queues

	queue   checkpoints.Queue // the open checkpoints, and the answers given
	aborted bool

	branch integrate.Branch // the integration branch
	vj     verify.Job       // the phase verification

	published []*phase.PlanStatus // the plans' copies the last snapshot handed out

	budget budget.State // what the run may spend, and has

	pause pause.State // a pause of the whole team (EvPause)

	human  attend.Wait  // when to stop for a human
	active active.Clock // how long hive ran the run
}

// New returns an engine waiting for EvRunStarted.
func New() *Engine { return &Engine{} }

// Step applies one event and returns the commands it causes. An error means
// the event was invalid for the current state; the state is unchanged then.
// Events of an attempt that is no longer current are ignored.
func (e *Engine) Step(ev phase.Event) ([]phase.Command, error) {
	cmds, err := e.step(ev)
	if err == nil {
		if ev.Type == phase.EvSilent && !plans.Stops(cmds, ev.Plan, ev.Attempt) {
			cmds = append(cmds, phase.Command{Type: phase.CmdWatch, Plan: ev.Plan, Attempt: ev.Attempt, At: e.now.Add(plans.SilenceRepeat(e.spec.Stall))})
		}
		plans.MarkDirty(e.plans, e.byID, ev, cmds)
		e.active.Tick(ev)
	}
	return cmds, err
}

func (e *Engine) step(ev phase.Event) ([]phase.Command, error) {
	if ev.Version > phase.Version {
		return nil, &phase.NewerError{Version: ev.Version}
	}
	if !ev.Time.IsZero() {
		e.now = ev.Time
	}
	if ev.Type == phase.EvRunStarted {
		if e.started {
			return nil, fmt.Errorf("run already started")
		}
		if ev.Spec == nil {
			return nil, fmt.Errorf("run-started without a spec")
		}
		if err := e.init(*ev.Spec); err != nil {
			*e = Engine{}
			return nil, err
		}
		e.now = ev.Time // init starts from a blank engine
		e.rules = max(1, ev.Version)
		e.human.Started(ev)
		return e.schedule(nil), nil
	}
	if !e.started {
		return nil, fmt.Errorf("%s before run-started", ev.Type)
	}
	if ev.Type == phase.EvAgentExited {
		e.budget.Gone(ev.Plan, ev.Attempt)
	}
	if ev.Type == phase.EvResumed {
		if ev.Version > 0 {
			e.rules = ev.Version
		}
		e.budget.Ended() // the previous process's agents are ended
		e.human.Resumed(ev)
		out, due := e.waits.Resumed(e.pause.Resume(e.resume(), e.now), e.now)
		if due {
			out = e.limitWake(out)
		}
		return e.schedule(out), nil
	}
	if ev.Type == phase.EvWake {
		return e.schedule(e.limitWake(e.rolloverDue(nil))), nil
	}
	if ev.Type == phase.EvLimited {
		return e.limited(ev)
	}
	if ev.Type == phase.EvAnswer && ev.Plan == phase.LimitID && e.byID[phase.LimitID] == nil {
		out, err := e.waits.Answer(ev, e.now)
		if err != nil {
			return nil, err
		}
		return e.schedule(e.limitWake(out)), nil
	}
	if ev.Type == phase.EvPause {
		return e.schedule(e.pauseAll()), nil
	}
	if ev.Plan == phase.VerifyID && e.byID[phase.VerifyID] == nil && ev.Type != phase.EvAnswer && ev.Type != phase.EvVerified {
		return e.schedule(e.vj.Event(verifyHost{e}, ev)), nil
	}
	if ev.Type == phase.EvVerified || (ev.Type == phase.EvAnswer && ev.Plan == phase.VerifyID && e.byID[phase.VerifyID] == nil) {
		return e.scheduled(e.vj.Verified(verifyHost{e}, ev, e.spec.Verifier))
	}
	if ev.Type == phase.EvAnswer && ev.Plan == phase.BudgetID && e.byID[phase.BudgetID] == nil {
		return e.scheduled(e.budgetAnswered(ev))
	}
	p := e.byID[ev.Plan]
	if p == nil {
		return nil, fmt.Errorf("%s: unknown plan %q", ev.Type, ev.Plan)
	}
	if ev.Type == phase.EvAnswer {
		return e.scheduled(e.answer(p, ev))
	}
	if ev.Type == phase.EvUsage || ev.Type == phase.EvSpend {
		usd, cli := p.AddTurn(ev)
		out := e.spend(nil, p, ev, usd, cli)
		if !plans.Stops(out, p.Spec.ID, ev.Attempt) {
			out = e.occupancy(out, p, ev)
		}
		if ev.Type == phase.EvUsage && ev.Attempt == p.Attempt {
			out = e.turnEnded(out, p)
		}
		return e.schedule(out), nil
	}
	if ev.Type == phase.EvCompacted {
		return e.schedule(p.Compacted(ev)), nil
	}
	if ev.Attempt != p.Attempt || (p.State != phase.Running && p.State != phase.Waiting) {
		return nil, nil // stale: an earlier attempt, or a plan already settled
	}
	if p.State == phase.Waiting {
		out, permission := p.Waiting(ev)
		if permission != nil {
			out = e.permission(out, p, permission)
		}
		return out, nil
	}
	if p.Stage != phase.StageWork {
		return e.scheduled(e.integrating(p, ev))
	}
	var out []phase.Command
	switch ev.Type {
	case phase.EvAgentStarted:
		p.PID = ev.PID
	case phase.EvProgress:
		p.Progressed(ev, e.now)
		e.waits.Progress() // the provider answers again
		out = e.taskDone(out, p)
	case phase.EvPlanComplete:
		out = p.Completed(out, ev)
	case phase.EvPlanFailed:
		reason := "agent reported PLAN FAILED"
		if ev.Reason != "" {
			reason += ": " + ev.Reason
		}
		out = e.failing(out, p, reason, false)
	case phase.EvCheckpoint, phase.EvDeviation:
		if ev.Checkpoint == nil {
			return nil, fmt.Errorf("%s %s without its content", ev.Type, p.Spec.ID)
		}
		if ev.Type == phase.EvCheckpoint && ev.Checkpoint.Type == "permission" {
			cp := *ev.Checkpoint
			out = e.permission(out, p, &cp)
			break
		}
		p.LastAnswered = nil
		out = e.raise(out, p, checkpoints.Of(ev))
	case phase.EvReport:
		if ev.Report == nil {
			return nil, fmt.Errorf("report %s without its content", p.Spec.ID)
		}
		out = e.reported(out, p, p.Reported(ev))
	case phase.EvSilent:
		out = p.Silent(out, e.spec.Team, ev)
	case phase.EvToolCall:
		if p.Check == phase.CheckNone {
			var stop string
			if out, stop = p.Called(out, e.spec.Guard, e.spec.Team, ev, e.now); stop != "" {
				// The loop guard stops the agent and hands its plan to the human.
				out = e.failing(p.Interrupt(out, stop), p, stop, false)
			}
		}
	case phase.EvCommitsChecked:
		out = p.CommitsChecked(out, ev.OK, e.now, "")
	case phase.EvAgentExited:
		p.AgentLive = false
		if cp := p.AnswerAtTurnEnd; cp != nil {
			// It ended before its turn did: a fresh session takes the answer.
			p.AnswerAtTurnEnd = nil
			out = e.continueWith(out, p, &phase.Continuation{Checkpoint: cp, Reason: "continue after the answer"})
		} else if p.Check == phase.CheckNone && p.Context.Rolling {
			// It ended its session as asked: the fresh one goes on.
			out = e.rollover(out, p, &phase.Continuation{})
		} else if p.Check == phase.CheckNone {
			// Seed 000 §2.2.7: an executor that ends without PLAN COMPLETE may
			// still have finished; the disk decides.
			p.ExitNote = ev.ExitNote()
			out = p.SpotCheck(out, phase.CheckExit)
		}
	case phase.EvSpotChecked:
		why := p.Check
		if why == phase.CheckNone {
			return nil, fmt.Errorf("spot-checked %s: no spot-check was asked for", p.Spec.ID)
		}
		p.Check = phase.CheckNone
		if ev.OK && e.spec.Worktrees {
			out = e.merge(out, p)
		} else if ev.OK {
			out = e.settle(out, p, phase.Complete, "")
		} else if why == phase.CheckResume {
			out = e.restart(out, p, "restarted after resume: "+ev.Reason)
		} else {
			reason, crashed := p.CheckFailed(ev, why)
			out = e.failing(out, p, reason, crashed)
		}
	default:
		return nil, fmt.Errorf("unknown event type %q", ev.Type)
	}
	return e.schedule(out), nil
}

// scheduled schedules after out, the commands of an event that was valid
// (err is nil).
func (e *Engine) scheduled(out []phase.Command, err error) ([]phase.Command, error) {
	if err != nil {
		return nil, err
	}
	return e.schedule(out), nil
}

func (e *Engine) init(spec phase.RunSpec) error {
	*e = Engine{} // a failed init leaves a blank engine that can take another run-started
	if spec.MaxConcurrent < 1 {
		spec.MaxConcurrent = 1
	}
	g, err := sched.New(spec.Plans, spec.Dynamic)
	if err != nil {
		return err
	}
	e.byID = make(map[string]*plans.Plan, len(spec.Plans))
	for i, ps := range spec.Plans {
		ps.Wave = g.Wave(i)
		p := plans.New(ps, i)
		e.byID[ps.ID] = p
		e.plans = append(e.plans, p)
	}
	e.spec = spec
	e.budget = budget.New(spec.Budget)
	e.started = true
	e.graph = g
	g.Reset(e.state)
	return nil
}

// state is the state of the plan at position i, for the graph.
func (e *Engine) state(i int) phase.PlanState { return e.plans[i].State }

// resume reconciles the plans that were running when the previous process
// stopped: their agents are told to go (they may have outlived it), and the
// disk decides what they achieved. A plan whose spot-check passes is
// complete (its agent finished before hive recorded it); any other restarts
// as a new attempt, which skips the tasks already committed.
func (e *Engine) resume() []phase.Command {
	e.resumes++
	var out []phase.Command
	out = e.vj.Resume(verifyHost{e}, out)
	if e.budget.Open() != nil {
		out = e.announce(out, e.budget.Open())
	}
	for _, p := range e.plans {
		var next plans.Resumed
		switch out, next = p.Resume(out); next {
		case plans.MergeAgain:
			out = e.merge(out, p)
		case plans.AskAgain:
			out = e.announce(out, p.Open)
		}
	}
	return out
}

// restart puts a running plan back in the queue for a new attempt.
func (e *Engine) restart(out []phase.Command, p *plans.Plan, reason string) []phase.Command {
	p.Restart(reason)
	e.running--
	e.graph.Enqueue(p.Pos)
	return append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, State: phase.Pending, Reason: reason})
}

// settle moves a running plan to a final state.
func (e *Engine) settle(out []phase.Command, p *plans.Plan, s phase.PlanState, reason string) []phase.Command {
	if p.State == phase.Running || p.State == phase.Waiting {
		e.running--
		out = p.End(out)
	}
	ready := e.graph.Settled(p.Pos, s == phase.Complete)
	e.queue.Remove(p.Spec.ID)
	p.State, p.Reason, p.Finished = s, reason, e.now
	p.Check, p.AgentLive = phase.CheckNone, false
	p.Stage = phase.StageWork
	p.Integ.Settled()
	out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, State: s, Reason: reason})
	for _, d := range ready {
		if e.plans[d].State == phase.Pending {
			e.graph.Enqueue(d)
		}
	}
	return out
}

// fail fails p and skips every plan that depends on it, directly or not.
func (e *Engine) fail(out []phase.Command, p *plans.Plan, reason string) []phase.Command {
	out = e.settle(out, p, phase.Failed, reason)
	queue := []*plans.Plan{p}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, i := range e.graph.Dependents(cur.Pos) {
			d := e.plans[i]
			if d.State != phase.Pending {
				continue
			}
			why := fmt.Sprintf("dependency %s failed", p.Spec.ID)
			if cur != p {
				why = fmt.Sprintf("dependency %s was skipped (%s failed)", cur.Spec.ID, p.Spec.ID)
			}
			out = e.settle(out, d, phase.Skipped, why)
			queue = append(queue, d)
		}
	}
	return out
}

// schedule starts as many ready plans as the limits allow, highest priority
// first, and finishes the run when every plan is final.
func (e *Engine) schedule(out []phase.Command) []phase.Command {
	if e.finished {
		return out
	}
	e.graph.Advance()
	if e.pause.Pausing() {
		return e.paging(out)
	}
	var setAside []*plans.Plan
	for e.running < e.spec.MaxConcurrent {
		i, ok := e.graph.Next()
		if !ok {
			break
		}
		p := e.plans[i]
		if e.spec.SharedTree && !plans.FitsSharedTree(p, e.plans, e.running) {
			setAside = append(setAside, p)
			continue
		}
		var held bool
		if out, held = e.held(out, p); held {
			setAside = append(setAside, p)
			break
		}
		out = e.start(out, p)
	}
	for _, p := range setAside {
		e.graph.Enqueue(p.Pos)
	}
	if e.running == 0 && e.graph.AllFinal() {
		if e.verifyPending() {
			return e.idle(e.vj.Begin(out)) // it may wait for a human
		}
		if e.budget.Open() != nil {
			// Nothing is left to spend on, so nothing to raise the budget
			// for: a finished run leaves no checkpoint open.
			out = e.closeBudget(out, "nothing left to run", byHive)
		}
		e.finished = true
		return append(out, phase.Command{Type: phase.CmdRunFinished, Reason: e.outcome()})
	}
	return e.idle(out)
}

// idle decides when the run stops for a human (attend.Wait.Idle).
func (e *Engine) idle(out []phase.Command) []phase.Command {
	return e.human.Idle(out, e.now, e.queue.Len() > 0, e.waits.Wait != nil, func() bool { return plans.AnyRunning(e.plans) })
}

func (e *Engine) start(out []phase.Command, p *plans.Plan) []phase.Command {
	if e.graph.Begin(p.Pos) {
		out = append(out, phase.Command{Type: phase.CmdWaveStarted, Wave: p.Spec.Wave})
	}
	p.State = phase.Running
	e.running++
	if spent, over := e.planOver(p); over {
		// It crossed its ceiling after its agent was stopped (the turn's
		// usage comes last): the human decides whether it gets another.
		return e.planFailed(out, p, spent)
	}
	cont := p.Start(e.now)
	return append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running},
		e.startAgent(p, "", cont))
}

// startAgent is the command that starts p's next agent in role: on the
// plan's rung of the model ladder, within its allotment of the budget. Its
// first turn is in flight from now.
func (e *Engine) startAgent(p *plans.Plan, role string, c *phase.Continuation) phase.Command {
	e.budget.Started(p.Spec.ID, p.Attempt)
	return phase.Command{Type: phase.CmdStartAgent, Plan: p.Spec.ID, Attempt: p.Attempt, Role: role, Continuation: c,
		Rung: p.Rung, MaxUSD: e.budget.Allotment(&p.PlanStatus), Fallback: e.waits.FellBack}
}
