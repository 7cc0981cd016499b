package engine

import (
	"fmt"
	"time"
)

// ContextLimits says when a live session's context is full enough to hand
// over to a fresh session (seed 001), before the CLI compacts it on its own
// and the agent forgets its plan, its answers and its decisions.
type ContextLimits struct {
	// HandoffPercent of the model's window starts a rollover; 0 means
	// DefaultHandoffPercent.
	HandoffPercent float64 `json:"handoff_percent,omitempty"`
	// HandoffTokens, when set, starts a rollover at that many tokens, or
	// at HandoffPercent if that comes first.
	HandoffTokens int64 `json:"handoff_tokens,omitempty"`
	// Window is the context window of a model whose CLI does not say; 0
	// means DefaultWindow.
	Window int64 `json:"window,omitempty"`
	// NotesWait is how long an agent asked for its work in progress has
	// to commit it and write its notes; 0 means DefaultNotesWait. A silent
	// agent is rolled over from what hive knows.
	NotesWait time.Duration `json:"notes_wait,omitempty"`
	// Off turns rollovers off (occupancy is still tracked).
	Off bool `json:"off,omitempty"`
}

// Defaults of ContextLimits.
const (
	DefaultHandoffPercent = 50
	DefaultWindow         = 200_000
	DefaultNotesWait      = 2 * time.Minute
	// WarnShareOfHandoff is where the warning starts, as a share of the
	// handoff point.
	WarnShareOfHandoff = 0.8
)

// ContextUse is how full the context of a plan's current agent session is,
// and what rollovers and compactions the plan's sessions had.
type ContextUse struct {
	Tokens int64 `json:"tokens"` // in the session's context now
	Window int64 `json:"window"` // its model's window
	// Handoff is the occupancy at which the session hands over (0: never).
	Handoff int64 `json:"handoff,omitempty"`
	Peak    int64 `json:"peak,omitempty"` // the most any of the plan's sessions held
	// Rollovers and Compactions count the plan's sessions that handed
	// over, and the compactions their CLIs made on their own.
	Rollovers   int `json:"rollovers,omitempty"`
	Compactions int `json:"compactions,omitempty"`
	// Rolling: the session was asked for its work in progress and notes;
	// a fresh one follows.
	Rolling bool `json:"rolling,omitempty"`
}

// Share is how full the context is, from 0 to 1 (0 when the window is unknown).
func (c ContextUse) Share() float64 {
	if c.Window <= 0 {
		return 0
	}
	return float64(c.Tokens) / float64(c.Window)
}

// Warn reports whether the session nears its handoff point.
func (c ContextUse) Warn() bool {
	return c.Handoff > 0 && float64(c.Tokens) >= WarnShareOfHandoff*float64(c.Handoff)
}

// fullness says how full the context is, for the agent and the human.
func (c ContextUse) fullness() string {
	return fmt.Sprintf("context %s tokens, %.0f%% of the %s-token window", count(c.Tokens), 100*c.Share(), count(c.Window))
}

// over reports whether the session has passed its handoff point.
func (c ContextUse) over() bool { return c.Handoff > 0 && c.Tokens >= c.Handoff }

// handoffAt is the occupancy at which a session of a model with window
// hands over: the smaller of the two limits that are set.
func (l ContextLimits) handoffAt(window int64) int64 {
	if l.Off {
		return 0
	}
	pct := l.HandoffPercent
	if pct <= 0 {
		pct = DefaultHandoffPercent
	}
	at := int64(pct / 100 * float64(window))
	if l.HandoffTokens > 0 && (at <= 0 || l.HandoffTokens < at) {
		at = l.HandoffTokens
	}
	return at
}

func (l ContextLimits) window() int64 {
	if l.Window > 0 {
		return l.Window
	}
	return DefaultWindow
}

func (l ContextLimits) notesWait() time.Duration {
	if l.NotesWait > 0 {
		return l.NotesWait
	}
	return DefaultNotesWait
}

// occupancy takes what a usage or spend event says about the size of the
// current session's context. A turn's end (EvUsage) is a boundary where a
// live session past its handoff point can hand over.
func (e *Engine) occupancy(out []Command, p *PlanStatus, ev Event) []Command {
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
		c.Window = e.spec.Context.window()
	}
	c.Handoff = e.spec.Context.handoffAt(c.Window)
	if ev.Type != EvUsage || !e.spec.Team || !p.agentLive {
		// A one-shot session ends with its turn: the next is fresh anyway.
		return out
	}
	if p.State == Waiting {
		// At a checkpoint: the answer goes to a fresh session.
		p.rollAtAnswer = c.over()
		return out
	}
	p.rollAtAnswer = false
	if !e.atBoundary(p) {
		return out
	}
	if c.Rolling {
		return e.rollover(out, p, &Continuation{})
	}
	if c.over() {
		return e.askRollover(out, p, c.fullness())
	}
	return out
}

// atBoundary reports whether p's live agent works on its tasks, with
// nothing of it being checked: where it may be asked to hand over.
func (e *Engine) atBoundary(p *PlanStatus) bool {
	return p.State == Running && p.Stage == StageWork && p.check == CheckNone && p.agentLive
}

// taskDone: a live agent past its handoff point committed a task, a
// boundary where nothing is half done. It is asked to hand over now (the
// message joins its running turn) rather than when its turn ends, which
// for a long plan may be too late.
func (e *Engine) taskDone(out []Command, p *PlanStatus) []Command {
	c := &p.Context
	if !e.spec.Team || c.Rolling || !c.over() || !e.atBoundary(p) {
		return out
	}
	return e.askRollover(out, p, c.fullness())
}

// askRollover asks p's live agent for its work in progress and notes; the
// turn that answers (or NotesWait, whichever comes first) ends the session.
func (e *Engine) askRollover(out []Command, p *PlanStatus, why string) []Command {
	p.Context.Rolling = true
	p.rollBy = e.now.Add(e.spec.Context.notesWait())
	return append(out,
		Command{Type: CmdNote, Plan: p.Spec.ID, Text: why + ": asked the agent to commit its work in progress and write its notes; a fresh session follows"},
		Command{Type: CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: MsgRollover, Text: why},
		Command{Type: CmdWake, At: p.rollBy})
}

// rollover ends p's session and goes on in a fresh one, which c (with
// every answer and the notes) rehydrates. A session still in its turn
// (it did not answer in time) is interrupted: nothing it does later counts.
func (e *Engine) rollover(out []Command, p *PlanStatus, c *Continuation) []Command {
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
		out = append(out, Command{Type: CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID, Interrupt: true})
	default:
		out = append(out, Command{Type: CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID})
	}
	p.agentLive, cu.Rolling = false, false
	cu.Rollovers++
	c.Reason, c.Rollover = why, true
	return e.continueWith(out, p, c)
}

// rolloverDue rolls over the sessions that did not hand over by their time.
func (e *Engine) rolloverDue(out []Command) []Command {
	for _, p := range e.plans {
		if p.Context.Rolling && e.atBoundary(p) && !e.now.Before(p.rollBy) {
			out = e.rollover(out, p, &Continuation{})
		}
	}
	return out
}

// compacted journals a compaction the agent's CLI made on its own: the
// rollover came too late (or is off), and the agent may have lost its plan.
func (e *Engine) compacted(out []Command, p *PlanStatus, ev Event) []Command {
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
	return append(out, Command{Type: CmdNote, Plan: p.Spec.ID,
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
