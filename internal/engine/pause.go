package engine

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// StaleHandoff is how old a pause may be before a resume warns that the
// state it goes on from may be stale (seed 001: older than an hour).
const StaleHandoff = time.Hour

// pause brings the whole team to a stop (seed 001's checkpoint): each live
// agent is asked for its work in progress and notes like a rollover, a
// one-shot agent (which cannot be asked) is interrupted with its committed
// tasks kept, an agent waiting at a checkpoint is ended (the answer will go
// to a continuation). No new agent starts; merges, gates and resolvers in
// flight finish. Once nothing runs, CmdPaused.
func (e *Engine) pause() []phase.Command {
	if e.pausing || e.finished {
		return []phase.Command{{Type: phase.CmdNote, Text: "already pausing"}}
	}
	e.pausing, e.pausedAt = true, e.now
	out := []phase.Command{{Type: phase.CmdNote, Text: "pausing: every agent commits its work in progress and stops; resume to go on"}}
	for _, p := range e.plans {
		switch {
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
	if e.paused || e.anyRunning() {
		return out
	}
	if e.running == 0 && e.graph.AllFinal() && !e.verifyPending() {
		e.pausing = false // nothing was left to pause: the run finishes
		return e.schedule(out)
	}
	e.paused = true
	return append(out, phase.Command{Type: phase.CmdPaused, Reason: fmt.Sprintf("paused at %s", e.pausedAt.UTC().Format(time.RFC3339))})
}

// unpause ends a pause at a resume, warning when it is old: what the team
// knew may have changed meanwhile.
func (e *Engine) unpause(out []phase.Command) []phase.Command {
	if e.pausedAt.IsZero() {
		return out
	}
	if age := e.now.Sub(e.pausedAt); age > StaleHandoff {
		out = append(out, phase.Command{Type: phase.CmdNote, Text: fmt.Sprintf("Handoff is %d hours old. Proceeding with potentially stale state.", int(age/time.Hour))})
	}
	e.pausing, e.paused, e.pausedAt = false, false, time.Time{}
	return out
}
