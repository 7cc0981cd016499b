package phase

import (
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
