package piperun

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
)

// Follower steps a run's journal while another process writes it (the
// worker that drives a Temporal run), and tells an observer each event and
// command as the driver's own observer was told: a terminal that watches
// a run shows what one that drives it shows. Notes are not journaled and
// do not reach it.
type Follower struct {
	j   Records
	run int64
	m   *pipeline.Machine
	seq int64 // the last record stepped or fetched
	obs Observer
	// fetched are records read by Fetch that Next has not shown yet.
	fetched []journal.Record
}

// Records are where a Follower reads the run's records: its journal, or
// a copy of it (the run's workflow's).
type Records interface {
	Events(run int64, fromSeq int64) ([]journal.Record, error)
}

// NewFollower follows run in j, telling obs.
func NewFollower(j Records, run int64, obs Observer) *Follower {
	return &Follower{j: j, run: run, m: pipeline.New(), obs: obs}
}

// Next steps the records written since the last call and tells the
// observer; with quiet it only catches up (a watcher that joins late
// shows what happens from then on).
func (f *Follower) Next(quiet bool) error {
	if err := f.Fetch(); err != nil {
		return err
	}
	recs := f.fetched
	f.fetched = nil
	for i, rec := range recs {
		if slices.Contains(ShellRecords, rec.Type) {
			continue
		}
		var ev pipeline.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			f.fetched = recs[i+1:] // the next call shows the rest
			return fmt.Errorf("run %d, event %d: %w", f.run, rec.Seq, err)
		}
		cmds, err := f.m.Step(ev)
		if err != nil || quiet {
			continue // refused live too: it changed nothing
		}
		snap := f.m.Snapshot()
		f.obs.Event(ev, snap)
		for _, c := range cmds {
			f.obs.Command(c, snap)
		}
	}
	return nil
}

// Fetch reads the records written since the last call, which the next
// Next shows: a watcher that learns who writes them (a Temporal run's
// drivers) after it fetched them can say so before it shows them.
func (f *Follower) Fetch() error {
	recs, err := f.j.Events(f.run, f.seq+1)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if len(recs) > 0 {
		f.seq = recs[len(recs)-1].Seq
		f.fetched = append(f.fetched, recs...)
	}
	return nil
}

// Snapshot is the run's state as far as it has been followed.
func (f *Follower) Snapshot() pipeline.Snapshot { return f.m.Snapshot() }
