package runner

import (
	"context"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/plan"
)

// planningFiles is the executor of the planning files hive writes while a
// run goes: an open checkpoint's .pending-checkpoint file, and, in the
// shared tree, STATE.md and ROADMAP.md as plans complete (in worktree mode
// they are written on the integration branch with each merge, and in both
// modes delivered when the run ends: workspace.deliver).
type planningFiles struct {
	root   string
	phase  *plan.Phase
	plans  map[string]*plan.Plan
	now    func() time.Time
	say    func(plan, text string)
	shared func() bool // no worktrees: the files are in the user's tree

	trackedAt time.Time // when STATE.md and ROADMAP.md were last written
}

// planningCommands are the command types planningFiles carries out.
var planningCommands = []engine.CommandType{engine.CmdCheckpointOpened, engine.CmdCheckpointClosed, engine.CmdPlanState}

func (f *planningFiles) Execute(_ context.Context, c engine.Command, snap engine.Snapshot) {
	switch c.Type {
	case engine.CmdCheckpointOpened:
		if err := writePending(f.root, f.phase, c.Checkpoint); err != nil {
			f.say(c.Plan, err.Error())
		}
	case engine.CmdCheckpointClosed:
		removePending(f.root, f.phase, c.Plan)
	case engine.CmdPlanState:
		// Without worktrees the files are written in the user's tree as
		// plans complete, at most once a second (a thousand-plan roadmap
		// rewritten a thousand times was most of a large run's cost), and
		// committed once when the run ends.
		p := f.plans[c.Plan]
		if c.State != engine.Complete || p == nil || !f.shared() || time.Since(f.trackedAt) < time.Second {
			return
		}
		f.trackedAt = time.Now()
		if err := writeTracking(f.root, f.phase, snap, nil, "Completed "+baseName(p.Path), f.now()); err != nil {
			f.say(c.Plan, "update STATE.md and ROADMAP.md: "+err.Error())
		}
	}
}

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
