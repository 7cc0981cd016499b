package cli

// hive status of the Temporal runs of execute-phase and hive run.

import (
	"context"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/temporalhost"
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
	names := temporalhost.NewNames(ctx, o.root)
	for _, ph := range phases {
		r, found, err := names.Run(ctx, c, ph)
		if err != nil {
			return err
		}
		if !found {
			continue // no run of this phase on the server
		}
		snap, err := temporalhost.PhaseState(ctx, c, r.Workflow, r.Running)
		if err != nil {
			return fmt.Errorf("phase %s: %w", ph.Number, err)
		}
		v := phaseView(snap, 0, ph.Dir, r.Started, snap.Outcome)
		v.Workflow = r.Workflow
		if r.Running {
			v.Live = true
		} else {
			v.Finished = &r.Closed
		}
		v.Elapsed = activeTime(snap, v.Live, time.Now()).Round(time.Second).String()
		views = append(views, v)
	}
	if pipe != nil {
		if id, running := temporalhost.RunUnderWay(ctx, c, o.root); running && pipe.Finished == nil {
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
func temporalPhases(ctx context.Context, o *statusOptions) ([]*plan.Phase, temporalhost.Client, error) {
	phases, err := loadPhases(o.root, "")
	if err != nil {
		return nil, nil, err
	}
	c, err := o.dial(ctx)
	return phases, c, err
}
