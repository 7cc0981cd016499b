package temporal

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/roleplan"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// ObjectiveExecutor carries out a `hive run`'s pipeline commands on a
// worker: a role's session, the lint of the architect's plans, the phase,
// the tests and the build, an evaluation, a delivery. It returns the
// events the command ends with; a role session hands those it meets on
// the way (its start, its usage, its report) to emit as they happen. It
// must end when ctx does: the workflow cancels a session's context to
// stop its agent, which still says how it ended. Events leave Time zero:
// the workflow stamps them with its own clock.
//
// Record journals the events of r in the run's folder's journal where it
// does not hold them yet (the journal is a view of the workflow's history,
// which hive status, hive serve and hive report read); Finish delivers an
// ended run, in its folder, and returns how (opaque here: the
// executor's).
type ObjectiveExecutor interface {
	Execute(ctx context.Context, w ObjectiveWork, emit func(roleplan.Event)) ([]roleplan.Event, error)
	Record(ctx context.Context, r ObjectiveRecords) error
	Finish(ctx context.Context, end ObjectiveEnd) (json.RawMessage, error)
}

// objectiveActivities carry out an objective's commands on a worker.
type objectiveActivities struct {
	exec   ObjectiveExecutor
	client client.Client // nil: events met on the way come with the result
	beat   time.Duration
}

// Command carries out w's command while it heartbeats, and signals the
// events met on the way to the run's workflow at once (a role's report
// must not wait for its agent to exit).
func (a *objectiveActivities) Command(ctx context.Context, w ObjectiveWork) ([]roleplan.Event, error) {
	done := make(chan struct{})
	defer close(done)
	go heartbeat(ctx, a.beat, done)
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
			if err := a.client.SignalWorkflow(sctx, id, "", ObjectiveEventSignal, ev); err != nil {
				activity.GetLogger(ctx).Warn("signal a role's event to the run", "event", ev.Type, "error", err)
				keep(ev) // it goes with the result
			}
		}
	}
	out, err := a.exec.Execute(ctx, w, emit)
	mu.Lock()
	defer mu.Unlock()
	return append(later, out...), err
}

// Finish delivers the ended run while it heartbeats.
func (a *objectiveActivities) Finish(ctx context.Context, end ObjectiveEnd) (json.RawMessage, error) {
	done := make(chan struct{})
	defer close(done)
	go heartbeat(ctx, a.beat, done)
	return a.exec.Finish(ctx, end)
}

// RegisterObjective registers the objectives' workflow, and their
// commands' activity carried out by exec, with r; c signals the events
// met on the way (nil: they come with each command's result).
func RegisterObjective(r worker.Registry, c client.Client, exec ObjectiveExecutor) {
	acts := &objectiveActivities{exec: exec, client: c, beat: time.Second}
	r.RegisterWorkflowWithOptions(ObjectiveWorkflow, workflow.RegisterOptions{Name: ObjectiveWorkflowName})
	r.RegisterActivityWithOptions(acts.Command, activity.RegisterOptions{Name: ObjectiveCommandActivity})
	r.RegisterActivityWithOptions(acts.Finish, activity.RegisterOptions{Name: ObjectiveFinishActivity})
	r.RegisterActivityWithOptions(exec.Record, activity.RegisterOptions{Name: ObjectiveRecordActivity})
}
