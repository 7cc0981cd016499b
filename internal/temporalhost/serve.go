package temporalhost

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/serve/views"
	"github.com/hivectl/hive/internal/temporal"
)

// Remote is views.Remote for the Temporal backend: the workflow of
// each phase of the repository (Names), its state from its query
// while it runs and from its result once it has ended; answers are
// signals, as hive answer sends them.
type Remote struct {
	c      client.Client
	names  Names
	phases []*plan.Phase
	// ended keeps the runs that have finished: their state cannot change.
	ended map[string]views.RemoteRun
	logf  func(format string, args ...any)
}

// NewRemote is the Remote of the phases of the repository in folder root,
// on the server of c; logf tells what a run that cannot be shown lacks.
func NewRemote(ctx context.Context, c client.Client, root string, phases []*plan.Phase, logf func(format string, args ...any)) *Remote {
	return &Remote{c: c, names: NewNames(ctx, root), phases: phases, ended: map[string]views.RemoteRun{}, logf: logf}
}

func (t *Remote) Runs(ctx context.Context) ([]views.RemoteRun, error) {
	var runs []views.RemoteRun
	for _, ph := range t.phases {
		id, desc, found, err := t.names.Find(ctx, t.c, ph)
		if err != nil {
			return nil, err
		}
		if !found {
			continue // no run of this phase on the server
		}
		info := desc.GetWorkflowExecutionInfo()
		started := info.GetStartTime().AsTime()
		if r, ok := t.ended[id]; ok && r.Started.Equal(started) {
			runs = append(runs, r)
			continue
		}
		running := WorkflowRunning(desc)
		snap, err := PhaseState(ctx, t.c, id, running)
		if err != nil {
			// No worker to answer the query yet, or a run that failed
			// without a state: the others are still shown.
			t.logf("phase %s: %v", ph.Number, err)
			continue
		}
		r := views.RemoteRun{Workflow: id, Started: started, Snap: snap}
		if !running {
			r.Finished = info.GetCloseTime().AsTime()
			t.ended[id] = r
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Answer signals the answer to the workflow, after checking in its state
// that checkpoint cp of plan is still the one open: the engine ignores an
// answer to another checkpoint, and the person answering must hear so.
func (t *Remote) Answer(ctx context.Context, r views.RemoteRun, planID string, cp int, text string) error {
	snap, err := temporal.State(ctx, t.c, t.c.GetWorkflow(ctx, r.Workflow, ""))
	if err != nil {
		return err
	}
	if open := OpenCheckpoint(snap, planID); open == nil || open.ID != cp {
		return fmt.Errorf("%w: checkpoint #%d of %s", views.ErrNotOpen, cp, planID)
	}
	ev := phase.Event{Type: phase.EvAnswer, Plan: planID, Text: text, By: "hive serve", CheckpointID: cp, Time: time.Now().UTC()}
	if err := t.c.SignalWorkflow(ctx, r.Workflow, "", temporal.EventSignal, ev); err != nil {
		return fmt.Errorf("send the answer to %s: %w", r.Workflow, err)
	}
	return nil
}

// OpenCheckpoint is the checkpoint plan waits at in snap, nil if none.
func OpenCheckpoint(snap phase.Snapshot, planID string) *phase.Checkpoint {
	for i := range snap.Queue {
		if snap.Queue[i].Plan == planID {
			return &snap.Queue[i]
		}
	}
	return nil
}

// Close closes the client of the server.
func (t *Remote) Close() { t.c.Close() }
