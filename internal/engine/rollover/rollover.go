package rollover

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// Session is what the rollover keeps of a plan's current agent session,
// beside its occupancy (phase.ContextUse).
type Session struct {
	// By is when a rolling session hands over at the latest, or is rolled
	// over from what hive knows.
	By time.Time
	// AtAnswer: the live agent at a checkpoint is past its handoff point:
	// the answer goes to a fresh session.
	AtAnswer bool
}

// Observe takes what a usage or spend event says about the size of the
// session's context, c, under limits l.
func Observe(c *phase.ContextUse, l phase.ContextLimits, ev phase.Event) {
	if ev.ContextWindow > 0 {
		c.Window = ev.ContextWindow
	}
	if ev.ContextTokens > 0 {
		c.Tokens = ev.ContextTokens
		c.Peak = max(c.Peak, c.Tokens)
	}
	if c.Window == 0 {
		c.Window = window(l)
	}
	c.Handoff = handoffAt(l, c.Window)
}

// Action is what a turn's end means for a live session.
type Action int

// Actions.
const (
	Stay Action = iota // it goes on
	Hand               // it was asked for its notes and its turn ended: a fresh session follows now
	Ask                // it is past its handoff point: ask it for its work in progress and notes
)

// TurnEnded decides at the end of a live session's turn, a boundary where
// it can hand over: waiting, at a checkpoint, the answer will go to a
// fresh session if it is past its handoff point; at work on its tasks
// (boundary), a session asked for its notes hands over, and one past its
// handoff point is asked.
func (s *Session) TurnEnded(c phase.ContextUse, waiting, boundary bool) Action {
	if waiting {
		s.AtAnswer = over(c)
		return Stay
	}
	s.AtAnswer = false
	switch {
	case !boundary:
		return Stay
	case c.Rolling:
		return Hand
	case over(c):
		return Ask
	}
	return Stay
}

// TaskDue reports whether a session that committed a task, a boundary
// where nothing is half done, is to be asked to hand over now (the
// message joins its running turn) rather than when its turn ends, which
// for a long plan may be too late.
func TaskDue(c phase.ContextUse) bool { return !c.Rolling && over(c) }

// Ask asks the live agent of plan's attempt for its work in progress and
// notes, for why; the turn that answers (or the limits' NotesWait after
// now, whichever comes first) ends the session.
func (s *Session) Ask(c *phase.ContextUse, l phase.ContextLimits, now time.Time, plan string, attempt int, why string) []phase.Command {
	c.Rolling = true
	s.By = now.Add(notesWait(l))
	return []phase.Command{
		{Type: phase.CmdNote, Plan: plan, Text: why + ": asked the agent to commit its work in progress and write its notes; a fresh session follows"},
		{Type: phase.CmdSend, Plan: plan, Attempt: attempt, Message: phase.MsgRollover, Text: why},
		{Type: phase.CmdWake, At: s.By}}
}

// Due reports whether a rolling session did not hand over by its time.
func (s *Session) Due(c phase.ContextUse, now time.Time) bool {
	return c.Rolling && !now.Before(s.By)
}

// End ends the session at now and says why (the team pausing, or its
// context's size), and whether its agent, if live, is to be interrupted:
// a session still in its turn (it did not hand over in time) is, so that
// nothing it does later counts.
func (s *Session) End(c *phase.ContextUse, now time.Time, pausing, live bool) (why string, interrupt bool) {
	why = fmt.Sprintf("context rollover: the session held %s tokens", count(c.Tokens))
	if c.Window > 0 {
		why += fmt.Sprintf(" (%.0f%% of its window)", 100*c.Share())
	}
	if pausing {
		why = "the team paused: its session ended with its work in progress committed"
	}
	if live && s.Due(*c, now) {
		why += "; it did not hand over in time"
		interrupt = true
	}
	c.Rolling = false
	c.Rollovers++
	return why, interrupt
}

// Compacted notes a compaction that plan's agent's CLI made on its own
// (ev): the rollover came too late (or is off), and the agent may have
// lost its plan.
func Compacted(c *phase.ContextUse, plan string, ev phase.Event) phase.Command {
	c.Compactions++
	if ev.ContextTokens > 0 {
		c.Tokens = ev.ContextTokens
	}
	trigger := ev.Text
	if trigger == "" {
		trigger = "auto"
	}
	return phase.Command{Type: phase.CmdNote, Plan: plan,
		Text: fmt.Sprintf("the agent's CLI compacted its context (%s, %s → %s tokens): it may have lost details of its plan", trigger, count(ev.PreTokens), count(ev.ContextTokens))}
}

// Fullness says how full the context is, for the agent and the human.
func Fullness(c phase.ContextUse) string {
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
