package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Entry is one event to append with AppendAll.
type Entry struct {
	Type    string
	At      time.Time
	Payload []byte
}

// BatchAppender is a Journal that stores several events in one durable
// write (one transaction, one fsync). The runner uses it when it has more
// than one event ready: each is still durable before anything acts on it.
type BatchAppender interface {
	// AppendAll stores the entries in order, all or none, and returns
	// their seqs.
	AppendAll(run int64, entries []Entry) ([]int64, error)
}

// AppendAll appends entries to j in one write when j can, else one by one.
func AppendAll(j Journal, run int64, entries []Entry) ([]int64, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	if b, ok := j.(BatchAppender); ok {
		return b.AppendAll(run, entries)
	}
	seqs := make([]int64, 0, len(entries))
	for _, e := range entries {
		seq, err := j.Append(run, e.Type, e.At, e.Payload)
		if err != nil {
			return seqs, err
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

// AppendAll implements BatchAppender.
func (s *SQLite) AppendAll(run int64, entries []Entry) ([]int64, error) {
	for _, e := range entries {
		if err := CheckAppend(e.Type, e.Payload); err != nil {
			return nil, fmt.Errorf("journal append run %d: %w", run, err)
		}
	}
	s.appendMu.Lock()
	defer s.appendMu.Unlock()
	tx, err := s.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("journal append run %d: %w", run, err)
	}
	defer tx.Rollback()
	stmt := tx.Stmt(s.insert)
	seqs := make([]int64, 0, len(entries))
	for _, e := range entries {
		var seq int64
		err := stmt.QueryRow(formatTime(e.At), e.Type, string(e.Payload), run).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			err = runState(tx, run)
		}
		if err != nil {
			return nil, fmt.Errorf("journal append run %d: %w", run, err)
		}
		seqs = append(seqs, seq)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("journal append run %d: %w", run, err)
	}
	return seqs, nil
}

// AppendAll implements BatchAppender: it masks each payload first.
func (r redacting) AppendAll(run int64, entries []Entry) ([]int64, error) {
	masked := make([]Entry, len(entries))
	for i, e := range entries {
		masked[i] = e
		if CheckAppend(e.Type, e.Payload) == nil {
			masked[i].Payload = r.m.JSON(e.Payload)
		}
	}
	return AppendAll(r.Journal, run, masked)
}
