package engine

import (
	"github.com/hivectl/hive/internal/engine/rollover"
	"github.com/hivectl/hive/internal/phase"
)

// occupancy takes what a usage or spend event says about the size of the
// current session's context. A turn's end (EvUsage) is a boundary where a
// live session past its handoff point can hand over (package rollover).
func (e *Engine) occupancy(out []phase.Command, p *plan, ev phase.Event) []phase.Command {
	if ev.Attempt != p.Attempt || p.integ.Resolver(ev.Attempt) {
		return out
	}
	rollover.Observe(&p.Context, e.spec.Context, ev)
	if ev.Type != phase.EvUsage || !e.spec.Team || !p.agentLive {
		// A one-shot session ends with its turn: the next is fresh anyway.
		return out
	}
	switch p.roll.TurnEnded(p.Context, p.State == phase.Waiting, e.atBoundary(p)) {
	case rollover.Hand:
		return e.rollover(out, p, &phase.Continuation{})
	case rollover.Ask:
		return e.askRollover(out, p, rollover.Fullness(p.Context))
	}
	return out
}

// atBoundary reports whether p's live agent works on its tasks, with
// nothing of it being checked: where it may be asked to hand over.
func (e *Engine) atBoundary(p *plan) bool {
	return p.State == phase.Running && p.Stage == phase.StageWork && p.check == phase.CheckNone && p.agentLive
}

// taskDone: a live agent past its handoff point committed a task: it is
// asked to hand over now (rollover.TaskDue).
func (e *Engine) taskDone(out []phase.Command, p *plan) []phase.Command {
	if !e.spec.Team || !rollover.TaskDue(p.Context) || !e.atBoundary(p) {
		return out
	}
	return e.askRollover(out, p, rollover.Fullness(p.Context))
}

// askRollover asks p's live agent for its work in progress and notes; the
// turn that answers (or NotesWait, whichever comes first) ends the session.
func (e *Engine) askRollover(out []phase.Command, p *plan, why string) []phase.Command {
	return append(out, p.roll.Ask(&p.Context, e.spec.Context, e.now, p.Spec.ID, p.Attempt, why)...)
}

// rollover ends p's session and goes on in a fresh one, which c (with
// every answer and the notes) rehydrates. A session still in its turn
// (it did not answer in time) is interrupted: nothing it does later counts.
func (e *Engine) rollover(out []phase.Command, p *plan, c *phase.Continuation) []phase.Command {
	why, interrupt := p.roll.End(&p.Context, e.now, e.pausing, p.agentLive)
	if p.agentLive {
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID, Interrupt: interrupt})
	}
	p.agentLive = false
	c.Reason, c.Rollover = why, true
	return e.continueWith(out, p, c)
}

// rolloverDue rolls over the sessions that did not hand over by their time.
func (e *Engine) rolloverDue(out []phase.Command) []phase.Command {
	for _, p := range e.plans {
		if p.roll.Due(p.Context, e.now) && e.atBoundary(p) {
			out = e.rollover(out, p, &phase.Continuation{})
		}
	}
	return out
}
