package temporal

import (
	"context"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
)

// CommandActivity is the activity that carries out one engine command on a
// worker.
const CommandActivity = "hive-command"

// Executor carries out engine commands on a worker: an agent session, a
// spot-check, a merge (runner.Worker is hive's). since is the commit the
// plan's work in the run started after (phase.PlanSpec.Since): a worker
// that joins a run late must not take it from its own tree; snap is the
// run's state, for a merge to record in the planning files. It returns the
// events the command ends with; a long command (an agent session) hands
// the events it meets on the way to emit as they happen. It must end when
// ctx does: the workflow cancels a session's context to stop its agent.
// Events leave Time zero: the workflow stamps them with its own clock.
type Executor interface {
	Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error)
}

// Work is one command for a worker, with what the worker cannot know.
type Work struct {
	Command phase.Command `json:"command"`
	Since   string        `json:"since,omitempty"`
	// State is the run's state when the command was sent: a merge's
	// (STATE.md and ROADMAP.md say what it says); nil for the others.
	State *phase.Snapshot `json:"state,omitempty"`
	// Where is the workflow's Dispatch.Where.
	Where *Where `json:"where,omitempty"`
}

// Activities are what a `hive worker` registers: Command runs Exec and
// heartbeats while it works, so that a worker that dies is noticed within
// the heartbeat timeout (the watchdog of distributed mode). Events met on
// the way are signalled to the run's workflow through Client at once (a
// checkpoint must not wait for its session to end); without a Client they
// come back with the result.
type Activities struct {
	Exec Executor
	// For is the executor of a command that names its phase (Work.Where),
	// for workers that serve many; nil where every command is Exec's.
	For    func(Where) (Executor, error)
	Client client.Client
	// Host is a task queue only this worker polls ("" for none): a
	// session started here says so to its workflow (SessionSignal), which
	// then sends the messages to its agent there. Without a Client no
	// session can say where it is, and messages to agents wait forever.
	Host string
	// Beat is how often a working command heartbeats; 0 means a second.
	Beat time.Duration
}

// Heartbeat tells the server every beat that the activity of ctx is at
// work, until done is closed: a worker that dies is noticed within the
// heartbeat timeout.
func Heartbeat(ctx context.Context, beat time.Duration, done <-chan struct{}) {
	t := time.NewTicker(beat)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			activity.RecordHeartbeat(ctx)
		}
	}
}

// Command carries out w's command and returns the events it ended with.
func (a *Activities) Command(ctx context.Context, w Work) ([]phase.Event, error) {
	beat := a.Beat
	if beat <= 0 {
		beat = time.Second
	}
	done := make(chan struct{})
	defer close(done)
	go Heartbeat(ctx, beat, done)
	var later []phase.Event
	emit := func(ev phase.Event) { later = append(later, ev) }
	if a.Client != nil {
		info := activity.GetInfo(ctx)
		if c := w.Command; c.Type == phase.CmdStartAgent {
			host := SessionHost{Plan: c.Plan, Attempt: c.Attempt, Queue: a.Host}
			if err := a.Client.SignalWorkflow(ctx, info.WorkflowExecution.ID, "", SessionSignal, host); err != nil {
				return nil, fmt.Errorf("tell the run where the session of %s runs: %w", c.Plan, err)
			}
		}
		emit = func(ev phase.Event) {
			if err := a.Client.SignalWorkflow(ctx, info.WorkflowExecution.ID, "", EventSignal, ev); err != nil {
				activity.GetLogger(ctx).Warn("signal an agent's event to the run", "event", ev.Type, "error", err)
			}
		}
	}
	var snap phase.Snapshot
	if w.State != nil {
		snap = *w.State
	}
	exec := a.Exec
	if w.Where != nil {
		if a.For == nil {
			return nil, fmt.Errorf("this worker serves one phase; the command of %s is for %s in %s", w.Command.Plan, w.Where.Phase, w.Where.Dir)
		}
		var err error
		if exec, err = a.For(*w.Where); err != nil {
			return nil, err
		}
	}
	out, err := exec.Execute(ctx, w.Command, w.Since, snap, emit)
	return append(later, out...), err
}
