package runner

import (
	"context"
	"time"

	"github.com/hivectl/hive/internal/engine"
)

// humanWaits is the executor of the waits for a human: the timer that ends
// a checkpoint wait (CmdWake, whose EvWake is journaled when it fires), and
// the stop of a run that nobody answered in time (CmdStopForHuman).
type humanWaits struct {
	inbox   Inbox
	now     func() time.Time
	after   func(time.Duration, func())
	stopped bool // the loop ends its agents and returns NeedsHumanError
	paused  bool // the loop ends its agents, writes the handoff and returns PausedError
}

// humanCommands are the command types humanWaits carries out.
var humanCommands = []engine.CommandType{engine.CmdWake, engine.CmdStopForHuman, engine.CmdPaused}

func (h *humanWaits) Execute(_ context.Context, c engine.Command, _ engine.Snapshot) {
	switch c.Type {
	case engine.CmdWake:
		h.after(max(c.At.Sub(h.now()), 0), func() { h.inbox.Send(engine.Event{Type: engine.EvWake}) })
	case engine.CmdStopForHuman:
		h.stopped = true
	case engine.CmdPaused:
		h.paused = true
	}
}
