package cli

// hive status of the Temporal runs of execute-phase and hive run.

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/temporal"
)

// statusTemporal prints the Temporal run of each phase of the repository
// that has one, as status prints local runs.
func statusTemporal(ctx context.Context, o *statusOptions) error {
	// hive run's newest run is in the journal with either backend; its
	// workflow, while one drives it, is on the server.
	pipe, err := pipelineStatus(o)
	if err != nil {
		return err
	}
	phases, err := loadPhases(o.root, "")
	if err != nil && pipe == nil {
		return err // a project of hive run alone may have no .planning
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var views []statusRunView
	names := newRunNames(ctx, o.root)
	for _, ph := range phases {
		id, desc, found, err := names.find(ctx, c, ph)
		if err != nil {
			return err
		}
		if !found {
			continue // no run of this phase on the server
		}
		info := desc.GetWorkflowExecutionInfo()
		snap, err := temporalSnapshot(ctx, c, id, workflowRunning(desc))
		if err != nil {
			return fmt.Errorf("phase %s: %w", ph.Number, err)
		}
		v := phaseView(snap, 0, ph.Dir, info.GetStartTime().AsTime(), snap.Outcome)
		v.Workflow = id
		if workflowRunning(desc) {
			v.Live = true
		} else {
			closed := info.GetCloseTime().AsTime()
			v.Finished = &closed
		}
		v.Elapsed = activeTime(snap, v.Live, time.Now()).Round(time.Second).String()
		views = append(views, v)
	}
	if pipe != nil {
		id := pipelineWorkflowID(o.root)
		if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil && workflowRunning(d) && pipe.Finished == nil {
			pipe.Temporal, pipe.Live, pipe.Resume = id, true, ""
		}
		return printPipelineStatus(o, views, pipe)
	}
	if len(views) == 0 {
		return noRuns(o)
	}
	if o.json {
		return printJSON(o.stdout, views)
	}
	printPhaseViews(o, views)
	return nil
}

// temporalPhases are the project's phases, and a client of the server
// their runs are kept on.
func temporalPhases(ctx context.Context, o *statusOptions) ([]*plan.Phase, client.Client, error) {
	phases, err := loadPhases(o.root, "")
	if err != nil {
		return nil, nil, err
	}
	c, err := o.dial(ctx)
	return phases, c, err
}

// temporalSnapshot is the state of workflow id: a running one answers a
// query (a worker replays it), a closed one's result holds it, with no
// worker needed.
func temporalSnapshot(ctx context.Context, c client.Client, id string, running bool) (engine.Snapshot, error) {
	run := c.GetWorkflow(ctx, id, "")
	if running {
		snap, err := temporalState(ctx, c, run)
		if err != nil {
			return snap, fmt.Errorf("%w (is a hive worker of the run up?)", err)
		}
		return snap, nil
	}
	var res temporal.RunResult
	if err := temporal.Result(ctx, run, &res); err != nil {
		return engine.Snapshot{}, fmt.Errorf("the run's workflow ended without a state: %w", err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		return engine.Snapshot{}, err
	}
	return final.Snapshot(), nil
}

// donePlans counts the plans of spec already complete on disk.
func donePlans(spec engine.RunSpec) int {
	n := 0
	for _, p := range spec.Plans {
		if p.Done {
			n++
		}
	}
	return n
}
