package engine

import (
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/engine/rollover"
	"github.com/hivectl/hive/internal/phase"
)

// occupancy takes what a usage or spend event says about the size of the
// current session's context. A turn's end (EvUsage) is a boundary where a
// live session past its handoff point can hand over (package rollover).
func (e *Engine) occupancy(out []phase.Command, p *plans.Plan, ev phase.Event) []phase.Command {
	if ev.Attempt != p.Attempt || p.Integ.Resolver(ev.Attempt) {
		return out
	}
	rollover.Observe(&p.Context, e.spec.Context, ev)
	if ev.Type != phase.EvUsage || !e.spec.Team || !p.AgentLive {
		// A one-shot session ends with its turn: the next is fresh anyway.
		return out
	}
	switch p.Roll.TurnEnded(p.Context, p.State == phase.Waiting, p.AtBoundary()) {
	case rollover.Hand:
		return e.rollover(out, p, &phase.Continuation{})
	case rollover.Ask:
		return e.askRollover(out, p, rollover.Fullness(p.Context))
	}
	return out
}

// taskDone: a live agent past its handoff point committed a task: it is
// asked to hand over now (rollover.TaskDue).
func (e *Engine) taskDone(out []phase.Command, p *plans.Plan) []phase.Command {
	if !e.spec.Team || !rollover.TaskDue(p.Context) || !p.AtBoundary() {
		return out
	}
	return e.askRollover(out, p, rollover.Fullness(p.Context))
}

// askRollover asks p's live agent for its work in progress and notes; the
// turn that answers (or NotesWait, whichever comes first) ends the session.
func (e *Engine) askRollover(out []phase.Command, p *plans.Plan, why string) []phase.Command {
	return append(out, p.Roll.Ask(&p.Context, e.spec.Context, e.now, p.Spec.ID, p.Attempt, why)...)
}

// rollover ends p's session and goes on in a fresh one, which c (with
// every answer and the notes) rehydrates. A session still in its turn
// (it did not answer in time) is interrupted: nothing it does later counts.
func (e *Engine) rollover(out []phase.Command, p *plans.Plan, c *phase.Continuation) []phase.Command {
	why, interrupt := p.Roll.End(&p.Context, e.now, e.pause.Pausing(), p.AgentLive)
	if interrupt {
		out = p.Interrupt(out, "")
	}
	out = p.End(out)
	c.Reason, c.Rollover = why, true
	return e.continueWith(out, p, c)
}

// rolloverDue rolls over the sessions that did not hand over by their time.
func (e *Engine) rolloverDue(out []phase.Command) []phase.Command {
	for _, p := range e.plans {
		if p.Roll.Due(p.Context, e.now) && p.AtBoundary() {
			out = e.rollover(out, p, &phase.Continuation{})
		}
	}
	return out
}
