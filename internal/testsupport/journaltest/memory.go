package journaltest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/journal"
)

// Memory is an in-memory journal.Journal for tests. It behaves like
// SQLite (same checks, same errors, times normalised to UTC) but keeps
// nothing across processes.
type Memory struct {
	mu     sync.Mutex
	runs   []journal.Run      // runs[id-1]
	events [][]journal.Record // events[id-1], append-only
}

var _ journal.Journal = (*Memory)(nil)

// NewMemory is an empty journal.
func NewMemory() *Memory { return &Memory{} }

// run returns the index of id; the caller holds mu.
func (m *Memory) run(id int64) (int, error) {
	if id < 1 || id > int64(len(m.runs)) {
		return 0, journal.ErrRunNotFound
	}
	return int(id - 1), nil
}

func (m *Memory) CreateRun(phase string, at time.Time) (journal.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := journal.Run{ID: int64(len(m.runs)) + 1, Phase: phase, Started: at.UTC()}
	m.runs = append(m.runs, r)
	m.events = append(m.events, nil)
	return r, nil
}

func (m *Memory) LatestRun(phase string) (journal.Run, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.runs) - 1; i >= 0; i-- {
		if m.runs[i].Phase == phase {
			return m.runs[i], true, nil
		}
	}
	return journal.Run{}, false, nil
}

func (m *Memory) Runs() ([]journal.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	runs := slices.Clone(m.runs)
	slices.Reverse(runs)
	return runs, nil
}

func (m *Memory) Append(run int64, typ string, at time.Time, payload []byte) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := m.run(run)
	if err == nil {
		err = journal.CheckAppend(typ, payload)
	}
	if err == nil && !m.runs[i].Finished.IsZero() {
		err = journal.ErrRunFinished
	}
	if err != nil {
		return 0, fmt.Errorf("journal append run %d: %w", run, err)
	}
	seq := int64(len(m.events[i])) + 1
	// Copy: the caller may reuse its buffer, and a journal never changes.
	m.events[i] = append(m.events[i], journal.Record{Run: run, Seq: seq, Time: at.UTC(), Type: typ, Payload: slices.Clone(payload)})
	m.runs[i].Events = seq
	return seq, nil
}

func (m *Memory) Events(run int64, fromSeq int64) ([]journal.Record, error) {
	var recs []journal.Record
	err := m.scan("events", run, fromSeq, func(r journal.Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

func (m *Memory) Each(run int64, fn func(journal.Record) error) error {
	return m.scan("each", run, 1, fn)
}

// scan calls fn without holding mu, so fn may append (as a runner replaying
// and then continuing would); it sees the events present when it started.
func (m *Memory) scan(op string, run, fromSeq int64, fn func(journal.Record) error) error {
	m.mu.Lock()
	i, err := m.run(run)
	var recs []journal.Record
	if err == nil {
		recs = m.events[i] // safe to read unlocked: elements are never modified
	}
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("journal %s run %d: %w", op, run, err)
	}
	for _, r := range recs[max(0, min(fromSeq-1, int64(len(recs)))):] {
		r.Payload = slices.Clone(r.Payload) // fn must not be able to edit the log
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (m *Memory) FinishRun(run int64, at time.Time, outcome string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := m.run(run)
	if err == nil {
		err = journal.CheckFinish(at)
	}
	if err == nil && !m.runs[i].Finished.IsZero() {
		err = journal.ErrRunFinished
	}
	if err != nil {
		return fmt.Errorf("journal finish run %d: %w", run, err)
	}
	m.runs[i].Finished = at.UTC()
	m.runs[i].Outcome = outcome
	return nil
}

// Close is a no-op; a Memory stays usable so tests can inspect it afterwards.
func (m *Memory) Close() error { return nil }
