package runjournal

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
)

// Key is the journal key of pipeline runs.
const Key = "pipeline"

// ShellRecords are the journal types the shell writes beside the
// machine's events: a replay skips them.
var ShellRecords = []string{DeliveredEvent, WarnedEvent, ContextEvent, ConfidenceEvent, PlannedEvent, PostmortemEvent}

// Latest returns the newest pipeline run and whether there is one.
func Latest(j journal.Journal) (journal.Run, bool, error) { return j.LatestRun(Key) }

// Replay rebuilds a run's machine from its journal.
func Replay(j journal.Journal, run journal.Run) (*pipeline.Machine, error) {
	m := pipeline.New()
	evs, err := Events(j, run)
	for _, ev := range evs {
		m.Step(ev) // an event refused live changed nothing then either
	}
	return m, err
}

// Events are the events run's machine stepped, as its journal holds them
// (without the shell's own records).
func Events(j journal.Journal, run journal.Run) ([]roleplan.Event, error) {
	var evs []roleplan.Event
	err := j.Each(run.ID, func(rec journal.Record) error {
		if slices.Contains(ShellRecords, rec.Type) {
			return nil
		}
		var ev roleplan.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("event %d: %w", rec.Seq, err)
		}
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}

// Abandon finishes the newest unfinished run as abandoned, leaving its
// branch for the user.
func Abandon(j journal.Journal, now time.Time) (journal.Run, bool, error) {
	last, ok, err := Latest(j)
	if err != nil || !ok || !last.Finished.IsZero() {
		return last, false, err
	}
	return last, true, j.FinishRun(last.ID, now, "abandoned")
}

// Find is run number id of j.
func Find(j journal.Journal, id int64) (journal.Run, error) {
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, nil
		}
	}
	return journal.Run{}, fmt.Errorf("run %d: %w", id, journal.ErrRunNotFound)
}

// Record journals events, the events a run's machine stepped from the
// from-th on (counted from 0), in its folder's journal j where it does not
// hold them yet: the journal is a view of the run, which hive status,
// hive serve and hive report read as a local run's.
func Record(j journal.Journal, run int64, from int, events []roleplan.Event) error {
	held := 0
	if err := j.Each(run, func(rec journal.Record) error {
		if !slices.Contains(ShellRecords, rec.Type) {
			held++
		}
		return nil
	}); err != nil {
		return err
	}
	if held < from {
		return fmt.Errorf("run %d's journal holds %d events; these start at the %d-th", run, held, from+1)
	}
	var entries []journal.Entry
	for _, ev := range events[min(held-from, len(events)):] {
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		entries = append(entries, journal.Entry{Type: string(ev.Type), At: ev.Time.UTC(), Payload: payload})
	}
	if _, err := journal.AppendAll(j, run, entries); err != nil {
		return fmt.Errorf("journal run %d's events: %w", run, err)
	}
	return nil
}

// Branch names the branch of run N as hive named it before branches
// were named after the workflow and objective: hive/run/N. Runs whose
// spec records no branch use it.
func Branch(run int64) string { return fmt.Sprintf("hive/run/%d", run) }

// RunBranch is the branch of a run, as its journal records it.
func RunBranch(j journal.Journal, run journal.Run) string {
	if m, err := Replay(j, run); err == nil {
		if b := m.Snapshot().Spec.Branch; b != "" {
			return b
		}
	}
	return Branch(run.ID)
}
