package journal

import (
	"encoding/json"
	"errors"
	"time"
)

// Record is one journaled event.
type Record struct {
	Run     int64
	Seq     int64 // 1, 2, 3… within Run, without gaps
	Time    time.Time
	Type    string
	Payload json.RawMessage
}

// Run is one execution of a phase (or of any job the caller names by Phase).
type Run struct {
	ID       int64
	Phase    string
	Started  time.Time
	Finished time.Time // zero while the run is unfinished
	Outcome  string
	Events   int64
}

// Journal is implemented by *SQLite (durable) and *Memory (tests).
type Journal interface {
	CreateRun(phase string, at time.Time) (Run, error)
	// LatestRun returns the newest run of phase; false if there is none.
	LatestRun(phase string) (Run, bool, error)
	// Runs returns every run, newest first.
	Runs() ([]Run, error)
	// Append stores an event and returns its seq. The event is durable
	// when Append returns. payload must be valid JSON.
	Append(run int64, typ string, at time.Time, payload []byte) (seq int64, err error)
	// Events returns the events of run with seq >= fromSeq, in order.
	Events(run int64, fromSeq int64) ([]Record, error)
	// Each calls fn for every event of run in order, without loading them
	// all; an error from fn stops the iteration and is returned as is.
	Each(run int64, fn func(Record) error) error
	// FinishRun marks run finished; it then refuses further events.
	FinishRun(run int64, at time.Time, outcome string) error
	Close() error
}

var (
	ErrRunNotFound = errors.New("no such run")
	ErrRunFinished = errors.New("run is finished")
)

var _ Journal = (*SQLite)(nil)

// CheckAppend holds the argument checks every Journal makes, so that the
// tests' in-memory journal refuses exactly what the durable one refuses.
func CheckAppend(typ string, payload []byte) error {
	if typ == "" {
		return errors.New("empty event type")
	}
	// Replay unmarshals every payload; an invalid one stored today would
	// make the whole run unreplayable later, so it is refused up front.
	if !json.Valid(payload) {
		return errors.New("payload is not valid JSON")
	}
	return nil
}

// CheckFinish is CheckAppend for the end of a run.
func CheckFinish(at time.Time) error {
	// A zero Finished means "unfinished", so a zero finish time would be
	// indistinguishable from a run that never finished.
	if at.IsZero() {
		return errors.New("zero finish time")
	}
	return nil
}
