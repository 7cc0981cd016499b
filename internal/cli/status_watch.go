package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/replay"
	"github.com/hivectl/hive/internal/tui"
)

// watchStatus follows the newest run from the journal: the read-only
// dashboard in a terminal, else the overview printed again on each change
// until the run ends.
func watchStatus(ctx context.Context, o *statusOptions, j journal.Journal) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !isTerminal(o.stdout) || !isTerminal(o.stdin) {
		var last int64 = -1
		return followPlain(ctx, func() (bool, error) {
			runs, err := j.Runs()
			if err != nil || len(runs) == 0 {
				return false, err
			}
			if runs[0].Events != last {
				last = runs[0].Events
				if err := printStatus(o, j); err != nil {
					return false, err
				}
				fmt.Fprintln(o.stdout)
			}
			return !runs[0].Finished.IsZero(), nil
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := tui.New(tui.Options{Now: time.Now(), Tick: true, Title: "status --watch"})
	p := tea.NewProgram(m, tea.WithInput(o.stdin), tea.WithOutput(o.stdout), tea.WithContext(ctx))
	go pollJournal(ctx, j, p.Send)
	_, err := p.Run()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

// followPlain calls poll twice a second until it says the run is over,
// fails, or ctx ends: status --watch without a terminal.
func followPlain(ctx context.Context, poll func() (over bool, err error)) error {
	for {
		over, err := poll()
		if over || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// pollJournal sends the newest run's snapshot and its new events to the
// dashboard twice a second.
func pollJournal(ctx context.Context, j journal.Journal, send func(tea.Msg)) {
	var run int64
	var seq int64
	for {
		if runs, err := j.Runs(); err == nil && len(runs) > 0 {
			r := runs[0]
			if r.ID != run {
				run, seq = r.ID, 0
				send(tui.StartedMsg{Time: r.Started})
			}
			if eng, err := replay.Run(j, r); err == nil {
				send(tui.SnapshotMsg{Snap: eng.Snapshot()})
			}
			j.Each(r.ID, func(rec journal.Record) error {
				if rec.Seq <= seq {
					return nil
				}
				seq = rec.Seq
				var ev phase.Event
				if json.Unmarshal(rec.Payload, &ev) == nil {
					if l, ok := tui.EventLine(ev); ok {
						send(tui.LogMsg(l))
					}
				}
				return nil
			})
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}
