package runner

import (
	"context"
	"time"

	"github.com/hivectl/hive/internal/phase"
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
var humanCommands = []phase.CommandType{phase.CmdWake, phase.CmdStopForHuman, phase.CmdPaused}

func (h *humanWaits) Execute(_ context.Context, c phase.Command, _ phase.Snapshot) {
	switch c.Type {
	case phase.CmdWake:
		h.after(max(c.At.Sub(h.now()), 0), func() { h.inbox.Send(phase.Event{Type: phase.EvWake}) })
	case phase.CmdStopForHuman:
		h.stopped = true
	case phase.CmdPaused:
		h.paused = true
	}
}
