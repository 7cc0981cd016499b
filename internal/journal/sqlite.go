package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// migrations[i] brings the schema from version i to i+1. Append only: a
// released migration is never edited, later versions add entries.
var migrations = []string{
	`CREATE TABLE runs(
		id       INTEGER PRIMARY KEY,
		phase    TEXT NOT NULL,
		started  TEXT,
		finished TEXT,
		outcome  TEXT
	);
	CREATE TABLE events(
		run_id  INTEGER NOT NULL REFERENCES runs(id),
		seq     INTEGER NOT NULL,
		time    TEXT NOT NULL,
		type    TEXT NOT NULL,
		payload TEXT NOT NULL,
		PRIMARY KEY(run_id, seq)
	);`,
}

// pragmas are applied by the driver to every pooled connection, not just the
// first one, which a one-off db.Exec("PRAGMA …") would not guarantee.
// busy_timeout comes first so the others wait instead of failing while
// another process holds the lock. synchronous=FULL fsyncs the WAL on every
// commit: Append's promise is "on disk when it returns".
var pragmas = []string{
	"busy_timeout(5000)",
	"journal_mode(WAL)",
	"synchronous(FULL)",
	"foreign_keys(1)",
}

// SQLite is the durable Journal: one file, safe to share with other
// processes (a second hive reading status or appending an answer).
type SQLite struct {
	db     *sql.DB
	insert *sql.Stmt
	// appendMu serialises this process's appenders before they reach
	// SQLite's file lock, where waiting means busy-handler sleeps of up to
	// tens of milliseconds. Other processes are serialised by BEGIN IMMEDIATE.
	appendMu sync.Mutex
}

// Open opens or creates the journal at path, creating parent directories,
// and migrates its schema. A journal written by a newer hive is refused.
func Open(path string) (*SQLite, error) {
	return open(path)
}

// open takes extra pragmas so tests can cap the file size.
func open(path string, extra ...string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("journal open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("journal open %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(abs, extra))
	if err != nil {
		return nil, fmt.Errorf("journal open %s: %w", path, err)
	}
	s := &SQLite{db: db}
	// Two processes that open a new journal at once (hive and a hive
	// status or answer beside it) race to switch it to WAL, which needs
	// the file to themselves; SQLite's busy handler does not cover that
	// switch, so the loser retries for a while before it gives up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err = s.init()
		if err == nil || !busy(err) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("journal open %s: %w", path, err)
	}
	return s, nil
}

// busy reports whether err is SQLite's "database is locked".
func busy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

func dsn(abs string, extra []string) string {
	// A file: URI with an escaped path, so '?', '#' or '%' in a directory
	// name cannot be mistaken for parameters; SQLite decodes it.
	var q []string
	for _, p := range slices.Concat(pragmas, extra) {
		q = append(q, "_pragma="+p)
	}
	// _txlock=immediate makes db.Begin issue BEGIN IMMEDIATE: the write lock
	// is taken (waiting up to busy_timeout) before anything is read, so a
	// transaction never fails half-way because another process wrote first.
	q = append(q, "_txlock=immediate")
	return (&url.URL{Scheme: "file", Path: abs}).String() + "?" + strings.Join(q, "&")
}

func (s *SQLite) init() error {
	if err := migrate(s.db); err != nil {
		return err
	}
	// The seq is computed in the INSERT itself, under the write lock, so two
	// appenders can never compute the same one. A finished or unknown run
	// selects no row, so nothing is inserted.
	var err error
	s.insert, err = s.db.Prepare(`
		INSERT INTO events(run_id, seq, time, type, payload)
		SELECT id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = runs.id), ?, ?, ?
		FROM runs WHERE id = ? AND finished IS NULL
		RETURNING seq`)
	return err
}

// migrate brings the schema up to date. A journal that is up to date
// already is only read: a reader beside a running hive (hive status, hive
// answer) then never waits for the write lock that BEGIN IMMEDIATE takes,
// which a busy writer holds in turns, and never delays that writer.
func migrate(db *sql.DB) error {
	var current string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&current); err == nil && current == strconv.Itoa(len(migrations)) {
		return nil
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)`); err != nil {
		return err
	}
	version := 0
	var v string
	switch err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		if version, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("bad schema_version %q", v)
		}
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this hive understands (%d): upgrade hive", version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.Exec(migrations[i]); err != nil {
			return fmt.Errorf("migration to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES('schema_version', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (s *SQLite) CreateRun(phase string, at time.Time) (Run, error) {
	res, err := s.db.Exec(`INSERT INTO runs(phase, started) VALUES(?, ?)`, phase, formatTime(at))
	if err != nil {
		return Run{}, fmt.Errorf("journal create run %q: %w", phase, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return Run{}, fmt.Errorf("journal create run %q: %w", phase, err)
	}
	return Run{ID: id, Phase: phase, Started: at.UTC()}, nil
}

// AdoptRun creates a run with run's number, phase and start, for a
// journal that takes up a run another kept (a hive run driven on another
// machine, whose records are in its Temporal workflow): its records are
// then appended in order, their seqs as they were. A journal that has a
// run of that number refuses.
func (s *SQLite) AdoptRun(run Run) error {
	if run.ID < 1 {
		return fmt.Errorf("journal adopt run %d: not a run number", run.ID)
	}
	if _, err := s.db.Exec(`INSERT INTO runs(id, phase, started) VALUES(?, ?, ?)`, run.ID, run.Phase, formatTime(run.Started)); err != nil {
		return fmt.Errorf("journal adopt run %d: %w", run.ID, err)
	}
	return nil
}

// runCols reads Events as the highest seq: seqs have no gaps, and MAX is a
// single index lookup where COUNT would scan the run.
const runCols = `SELECT id, phase, started, finished, outcome,
	(SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) FROM runs `

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var (
		r                 Run
		started, finished sql.NullString
		outcome           sql.NullString
	)
	if err := sc.Scan(&r.ID, &r.Phase, &started, &finished, &outcome, &r.Events); err != nil {
		return Run{}, err
	}
	r.Outcome = outcome.String
	var err error
	if started.Valid {
		if r.Started, err = time.Parse(time.RFC3339Nano, started.String); err != nil {
			return Run{}, fmt.Errorf("run %d: %w", r.ID, err)
		}
	}
	if finished.Valid {
		if r.Finished, err = time.Parse(time.RFC3339Nano, finished.String); err != nil {
			return Run{}, fmt.Errorf("run %d: %w", r.ID, err)
		}
	}
	return r, nil
}

// LatestRun and Runs order by id, i.e. creation order, which unlike the
// caller-supplied times cannot tie or go backwards.
func (s *SQLite) LatestRun(phase string) (Run, bool, error) {
	r, err := scanRun(s.db.QueryRow(runCols+`WHERE phase = ? ORDER BY id DESC LIMIT 1`, phase))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Run{}, false, nil
	case err != nil:
		return Run{}, false, fmt.Errorf("journal latest run %q: %w", phase, err)
	}
	return r, true, nil
}

func (s *SQLite) Runs() ([]Run, error) {
	rows, err := s.db.Query(runCols + `ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("journal runs: %w", err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("journal runs: %w", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal runs: %w", err)
	}
	return runs, nil
}

func (s *SQLite) Append(run int64, typ string, at time.Time, payload []byte) (int64, error) {
	seq, err := s.append(run, typ, at, payload)
	if err != nil {
		return 0, fmt.Errorf("journal append run %d: %w", run, err)
	}
	return seq, nil
}

func (s *SQLite) append(run int64, typ string, at time.Time, payload []byte) (int64, error) {
	if err := CheckAppend(typ, payload); err != nil {
		return 0, err
	}
	s.appendMu.Lock()
	defer s.appendMu.Unlock()
	// An explicit transaction rather than autocommit: Commit reports a
	// failed commit (SQLITE_FULL, I/O error) for certain, whereas an
	// autocommit INSERT … RETURNING commits when the statement is reset,
	// where an error is easy to lose.
	tx, err := s.db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var seq int64
	err = tx.Stmt(s.insert).QueryRow(formatTime(at), typ, string(payload), run).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, runState(tx, run)
	}
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return seq, nil
}

// runState explains why a run took no event or update: it does not exist or
// is finished. It returns nil for a run that is open.
func runState(q interface {
	QueryRow(string, ...any) *sql.Row
}, run int64) error {
	var finished sql.NullString
	err := q.QueryRow(`SELECT finished FROM runs WHERE id = ?`, run).Scan(&finished)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrRunNotFound
	case err != nil:
		return err
	case finished.Valid:
		return ErrRunFinished
	}
	return nil
}

func (s *SQLite) Events(run int64, fromSeq int64) ([]Record, error) {
	var recs []Record
	err := s.scan("events", run, fromSeq, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

func (s *SQLite) Each(run int64, fn func(Record) error) error {
	return s.scan("each", run, 1, fn)
}

// scan streams rows straight to fn, so replaying a million events holds one
// in memory at a time. Errors from fn are returned unwrapped.
func (s *SQLite) scan(op string, run, fromSeq int64, fn func(Record) error) error {
	wrap := func(err error) error { return fmt.Errorf("journal %s run %d: %w", op, run, err) }
	if err := runState(s.db, run); err != nil && !errors.Is(err, ErrRunFinished) {
		return wrap(err)
	}
	rows, err := s.db.Query(`SELECT seq, time, type, payload FROM events
		WHERE run_id = ? AND seq >= ? ORDER BY seq`, run, fromSeq)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		r := Record{Run: run}
		var ts string
		var payload []byte
		if err := rows.Scan(&r.Seq, &ts, &r.Type, &payload); err != nil {
			return wrap(err)
		}
		if r.Time, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return wrap(fmt.Errorf("seq %d: %w", r.Seq, err))
		}
		r.Payload = payload
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return wrap(err)
	}
	return nil
}

func (s *SQLite) FinishRun(run int64, at time.Time, outcome string) error {
	wrap := func(err error) error { return fmt.Errorf("journal finish run %d: %w", run, err) }
	if err := CheckFinish(at); err != nil {
		return wrap(err)
	}
	res, err := s.db.Exec(`UPDATE runs SET finished = ?, outcome = ? WHERE id = ? AND finished IS NULL`,
		formatTime(at), outcome, run)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrap(err)
	} else if n == 0 {
		if err := runState(s.db, run); err != nil {
			return wrap(err)
		}
		return wrap(errors.New("run not updated")) // unreachable: it exists and is open
	}
	return nil
}

// Close releases the file; the last connection to close checkpoints the WAL.
func (s *SQLite) Close() error {
	return errors.Join(s.insert.Close(), s.db.Close())
}
