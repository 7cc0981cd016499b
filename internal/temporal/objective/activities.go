package objective

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Executor carries out a `hive run`'s pipeline commands on a
// worker: a role's session, the lint of the architect's plans, the phase,
// the tests and the build, an evaluation, a delivery. It returns the
// events the command ends with; a role session hands those it meets on
// the way (its start, its usage, its report) to emit as they happen. It
// must end when ctx does: the workflow cancels a session's context to
// stop its agent, which still says how it ended. Events leave Time zero:
// the workflow stamps them with its own clock.
//
// Phase carries out one stage of a phase run (PhaseWork): it readies the
// phase in the run's tree, or says what the phase's stop or end means to
// the machine, having brought its work into the run's tree.
//
// Record journals the events of r in the run's folder's journal where it
// does not hold them yet (the journal is a view of the workflow's history,
// which hive status, hive serve and hive report read); Finish delivers an
// ended run, in its folder, and returns how (opaque here: the
// executor's).
type Executor interface {
	Execute(ctx context.Context, w Work, emit func(roleplan.Event)) ([]roleplan.Event, error)
	Phase(ctx context.Context, w PhaseWork, emit func(roleplan.Event)) (PhaseStep, error)
	Record(ctx context.Context, r Records) error
	Finish(ctx context.Context, end End) (json.RawMessage, error)
}

// activities carry out an objective's commands on a worker.
type activities struct {
	exec   Executor
	client client.Client // nil: events met on the way come with the result
	beat   time.Duration
}

// Command carries out w's command while it heartbeats, and signals the
// events met on the way to the run's workflow at once (a role's report
// must not wait for its agent to exit).
func (a *activities) Command(ctx context.Context, w Work) ([]roleplan.Event, error) {
	var out []roleplan.Event
	later, err := a.signalling(ctx, func(emit func(roleplan.Event)) (err error) {
		out, err = a.exec.Execute(ctx, w, emit)
		return err
	})
	return append(later, out...), err
}

// Phase carries out a stage of a phase run while it heartbeats; its notes
// go to the run's workflow at once.
func (a *activities) Phase(ctx context.Context, w PhaseWork) (PhaseStep, error) {
	var step PhaseStep
	later, err := a.signalling(ctx, func(emit func(roleplan.Event)) (err error) {
		step, err = a.exec.Phase(ctx, w, emit)
		return err
	})
	step.Events = append(later, step.Events...)
	return step, err
}

// signalling runs do while it heartbeats, with an emit that signals each
// event to the activity's workflow; it returns those it could not signal,
// to go with the result.
func (a *activities) signalling(ctx context.Context, do func(emit func(roleplan.Event)) error) ([]roleplan.Event, error) {
	done := make(chan struct{})
	defer close(done)
	go temporal.Heartbeat(ctx, a.beat, done)
	var mu sync.Mutex // an executor may emit from more than one goroutine
	var later []roleplan.Event
	keep := func(ev roleplan.Event) {
		mu.Lock()
		defer mu.Unlock()
		later = append(later, ev)
	}
	emit := keep
	if a.client != nil {
		id := activity.GetInfo(ctx).WorkflowExecution.ID
		emit = func(ev roleplan.Event) {
			// Not the activity's context: a stopped session's last words
			// (its usage, how it ended) still go.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := a.client.SignalWorkflow(sctx, id, "", EventSignal, ev); err != nil {
				activity.GetLogger(ctx).Warn("signal a role's event to the run", "event", ev.Type, "error", err)
				keep(ev) // it goes with the result
			}
		}
	}
	err := do(emit)
	mu.Lock()
	defer mu.Unlock()
	return later, err
}

// Finish delivers the ended run while it heartbeats.
func (a *activities) Finish(ctx context.Context, end End) (json.RawMessage, error) {
	done := make(chan struct{})
	defer close(done)
	go temporal.Heartbeat(ctx, a.beat, done)
	return a.exec.Finish(ctx, end)
}

// Register registers the objectives' workflow, and their
// commands' activity carried out by exec, with r; c signals the events
// met on the way (nil: they come with each command's result).
func Register(r worker.Registry, c client.Client, exec Executor) {
	acts := &activities{exec: exec, client: c, beat: time.Second}
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(acts.Command, activity.RegisterOptions{Name: CommandActivity})
	r.RegisterActivityWithOptions(acts.Phase, activity.RegisterOptions{Name: PhaseActivity})
	r.RegisterActivityWithOptions(acts.Finish, activity.RegisterOptions{Name: FinishActivity})
	r.RegisterActivityWithOptions(exec.Record, activity.RegisterOptions{Name: RecordActivity})
}
