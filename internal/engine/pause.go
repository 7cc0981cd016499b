package engine

import (
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// pauseAll brings the whole team to a stop (package pause): each live
// agent is asked for its work in progress and notes like a rollover, a
// one-shot agent (which cannot be asked) is interrupted with its committed
// tasks kept, an agent waiting at a checkpoint is ended (the answer will go
// to a continuation). No new agent starts; merges, gates and resolvers in
// flight finish. Once nothing runs, CmdPaused.
func (e *Engine) pauseAll() []phase.Command {
	note, ok := e.pause.Ask(e.now, e.finished)
	out := []phase.Command{note}
	for _, p := range e.plans {
		switch {
		case !ok:
			return out
		case p.State == phase.Waiting && p.AgentLive:
			out = p.End(out)
			p.Open.Standalone = true
		case !p.AtBoundary() || p.Context.Rolling:
		case e.spec.Team:
			out = e.askRollover(out, p, "the team is pausing")
		default:
			out = e.park(out, p, &phase.Continuation{Reason: "paused; the previous agent was stopped mid-turn"}, "paused until the run is resumed")
		}
	}
	return out
}

// paging is schedule while pausing: nothing new starts, and once no plan
// runs the pause is done.
func (e *Engine) paging(out []phase.Command) []phase.Command {
	if e.pause.Paused() || plans.AnyRunning(e.plans) {
		return out
	}
	if e.running == 0 && e.graph.AllFinal() && !e.verifyPending() {
		e.pause.Cancel() // nothing was left to pause: the run finishes
		return e.schedule(out)
	}
	return e.pause.Done(out)
}
