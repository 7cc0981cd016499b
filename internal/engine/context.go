package engine

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// fullness says how full the context is, for the agent and the human.
func fullness(c phase.ContextUse) string {
	return fmt.Sprintf("context %s tokens, %.0f%% of the %s-token window", count(c.Tokens), 100*c.Share(), count(c.Window))
}

// over reports whether the session has passed its handoff point.
func over(c phase.ContextUse) bool { return c.Handoff > 0 && c.Tokens >= c.Handoff }

// handoffAt is the occupancy at which a session of a model with window
// hands over: the smaller of the two limits that are set.
func handoffAt(l phase.ContextLimits, window int64) int64 {
	if l.Off {
		return 0
	}
	pct := l.HandoffPercent
	if pct <= 0 {
		pct = phase.DefaultHandoffPercent
	}
	at := int64(pct / 100 * float64(window))
	if l.HandoffTokens > 0 && (at <= 0 || l.HandoffTokens < at) {
		at = l.HandoffTokens
	}
	return at
}

func window(l phase.ContextLimits) int64 {
	if l.Window > 0 {
		return l.Window
	}
	return phase.DefaultWindow
}

func notesWait(l phase.ContextLimits) time.Duration {
	if l.NotesWait > 0 {
		return l.NotesWait
	}
	return phase.DefaultNotesWait
}

// occupancy takes what a usage or spend event says about the size of the
// current session's context. A turn's end (EvUsage) is a boundary where a
// live session past its handoff point can hand over.
func (e *Engine) occupancy(out []phase.Command, p *plan, ev phase.Event) []phase.Command {
	if ev.Attempt != p.Attempt || p.resolvers[ev.Attempt] {
		return out
	}
	c := &p.Context
	if ev.ContextWindow > 0 {
		c.Window = ev.ContextWindow
	}
	if ev.ContextTokens > 0 {
		c.Tokens = ev.ContextTokens
		c.Peak = max(c.Peak, c.Tokens)
	}
	if c.Window == 0 {
		c.Window = window(e.spec.Context)
	}
	c.Handoff = handoffAt(e.spec.Context, c.Window)
	if ev.Type != phase.EvUsage || !e.spec.Team || !p.agentLive {
		// A one-shot session ends with its turn: the next is fresh anyway.
		return out
	}
	if p.State == phase.Waiting {
		// At a checkpoint: the answer goes to a fresh session.
		p.rollAtAnswer = over(*c)
		return out
	}
	p.rollAtAnswer = false
	if !e.atBoundary(p) {
		return out
	}
	if c.Rolling {
		return e.rollover(out, p, &phase.Continuation{})
	}
	if over(*c) {
		return e.askRollover(out, p, fullness(*c))
	}
	return out
}

// atBoundary reports whether p's live agent works on its tasks, with
// nothing of it being checked: where it may be asked to hand over.
func (e *Engine) atBoundary(p *plan) bool {
	return p.State == phase.Running && p.Stage == phase.StageWork && p.check == phase.CheckNone && p.agentLive
}

// taskDone: a live agent past its handoff point committed a task, a
// boundary where nothing is half done. It is asked to hand over now (the
// message joins its running turn) rather than when its turn ends, which
// for a long plan may be too late.
func (e *Engine) taskDone(out []phase.Command, p *plan) []phase.Command {
	c := &p.Context
	if !e.spec.Team || c.Rolling || !over(*c) || !e.atBoundary(p) {
		return out
	}
	return e.askRollover(out, p, fullness(*c))
}

// askRollover asks p's live agent for its work in progress and notes; the
// turn that answers (or NotesWait, whichever comes first) ends the session.
func (e *Engine) askRollover(out []phase.Command, p *plan, why string) []phase.Command {
	p.Context.Rolling = true
	p.rollBy = e.now.Add(notesWait(e.spec.Context))
	return append(out,
		phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: why + ": asked the agent to commit its work in progress and write its notes; a fresh session follows"},
		phase.Command{Type: phase.CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: phase.MsgRollover, Text: why},
		phase.Command{Type: phase.CmdWake, At: p.rollBy})
}

// rollover ends p's session and goes on in a fresh one, which c (with
// every answer and the notes) rehydrates. A session still in its turn
// (it did not answer in time) is interrupted: nothing it does later counts.
func (e *Engine) rollover(out []phase.Command, p *plan, c *phase.Continuation) []phase.Command {
	cu := &p.Context
	why := fmt.Sprintf("context rollover: the session held %s tokens", count(cu.Tokens))
	if cu.Window > 0 {
		why += fmt.Sprintf(" (%.0f%% of its window)", 100*cu.Share())
	}
	if e.pausing {
		why = "the team paused: its session ended with its work in progress committed"
	}
	switch {
	case !p.agentLive:
	case cu.Rolling && !e.now.Before(p.rollBy):
		why += "; it did not hand over in time"
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID, Interrupt: true})
	default:
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID})
	}
	p.agentLive, cu.Rolling = false, false
	cu.Rollovers++
	c.Reason, c.Rollover = why, true
	return e.continueWith(out, p, c)
}

// rolloverDue rolls over the sessions that did not hand over by their time.
func (e *Engine) rolloverDue(out []phase.Command) []phase.Command {
	for _, p := range e.plans {
		if p.Context.Rolling && e.atBoundary(p) && !e.now.Before(p.rollBy) {
			out = e.rollover(out, p, &phase.Continuation{})
		}
	}
	return out
}

// compacted journals a compaction the agent's CLI made on its own: the
// rollover came too late (or is off), and the agent may have lost its plan.
func (e *Engine) compacted(out []phase.Command, p *plan, ev phase.Event) []phase.Command {
	if ev.Attempt != p.Attempt {
		return out
	}
	c := &p.Context
	c.Compactions++
	if ev.ContextTokens > 0 {
		c.Tokens = ev.ContextTokens
	}
	trigger := ev.Text
	if trigger == "" {
		trigger = "auto"
	}
	return append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID,
		Text: fmt.Sprintf("the agent's CLI compacted its context (%s, %s → %s tokens): it may have lost details of its plan", trigger, count(ev.PreTokens), count(ev.ContextTokens))})
}

// count writes a token count short: 950, 12k, 1.2M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
