package cli

import (
	"context"
	"fmt"
	"reflect"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/temporalhost"
	"github.com/hivectl/hive/internal/tui"
)

// watchTemporal follows the Temporal run of a phase under way, from its
// workflow's state query: the read-only dashboard in a terminal, else the
// overview printed again on each change until the run ends. With no run
// under way it prints the overview once.
func watchTemporal(ctx context.Context, o *statusOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	phases, c, err := temporalPhases(ctx, o)
	if err != nil {
		if pipe, perr := pipelineStatus(o); perr == nil && pipe != nil {
			// A project of hive run alone: no phase of its own to follow;
			// its run's status, once, as a local status --watch prints it.
			return statusTemporal(ctx, o)
		}
		return err
	}
	defer c.Close()
	id, started := "", time.Time{}
	names := temporalhost.NewNames(ctx, o.root)
	for _, ph := range phases {
		r, found, err := names.Run(ctx, c, ph)
		if err != nil {
			return err
		}
		if found && r.Running {
			id, started = r.Workflow, r.Started
			break
		}
	}
	if id == "" {
		return statusTemporal(ctx, o)
	}
	if !isTerminal(o.stdout) || !isTerminal(o.stdin) {
		var last *phase.Snapshot
		var failing time.Time // since when the workflow does not answer
		// A query that meets a worker just killed fails until the server
		// sends it to another: the overview waits for the next poll, and
		// gives up only when the workflow stays silent.
		tolerate := func(err error) (bool, error) {
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(failing) > watchSilence {
				return false, err
			}
			return false, nil
		}
		return followPlain(ctx, func() (bool, error) {
			snap, running, err := temporalhost.Poll(ctx, c, id)
			if err != nil {
				return tolerate(err)
			}
			if last == nil || !reflect.DeepEqual(snap, *last) || !running {
				if err := statusTemporal(ctx, o); err != nil {
					return tolerate(err)
				}
				last = &snap
				fmt.Fprintln(o.stdout)
			}
			failing = time.Time{}
			return !running, nil
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := tui.New(tui.Options{Now: time.Now(), Tick: true, Title: "status --watch (Temporal " + id + ")"})
	p := tea.NewProgram(m, tea.WithInput(o.stdin), tea.WithOutput(o.stdout), tea.WithContext(ctx))
	go func() {
		p.Send(tui.StartedMsg{Time: started})
		for {
			if snap, running, err := temporalhost.Poll(ctx, c, id); err == nil {
				p.Send(tui.SnapshotMsg{Snap: snap})
				if !running {
					p.Send(tui.FinishedMsg{})
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

// watchSilence is how long status --watch waits for a workflow that does
// not answer before it gives up.
const watchSilence = 30 * time.Second
