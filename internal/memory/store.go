package memory

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Path is where a repository's memory lives, relative to its root.
var Path = filepath.Join(".hive", "memory.db")

// migrations build the schema step by step; user_version counts the
// steps applied. A memory of a newer hive (more steps) is refused.
var migrations = []string{
	`CREATE TABLE runs(
		run       INTEGER PRIMARY KEY,
		objective TEXT NOT NULL,
		workflow  TEXT NOT NULL,
		outcome   TEXT NOT NULL,
		finished  TEXT NOT NULL
	);
	CREATE TABLE lessons(
		id        INTEGER PRIMARY KEY,
		run       INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE,
		kind      TEXT NOT NULL,
		role      TEXT NOT NULL,
		source    TEXT NOT NULL,
		key       TEXT NOT NULL,
		text      TEXT NOT NULL,
		files     TEXT NOT NULL,
		confirmed INTEGER NOT NULL
	);
	CREATE INDEX lessons_role ON lessons(role, key);
	CREATE TABLE decisions(
		id       INTEGER PRIMARY KEY,
		run      INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE,
		role     TEXT NOT NULL,
		question TEXT NOT NULL,
		choice   TEXT NOT NULL,
		by       TEXT NOT NULL
	);
	CREATE TABLE role_stats(
		run        INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE,
		role       TEXT NOT NULL,
		attempts   INTEGER NOT NULL,
		challenged INTEGER NOT NULL,
		fix_loops  INTEGER NOT NULL,
		tokens     INTEGER NOT NULL,
		cost_usd   REAL NOT NULL,
		PRIMARY KEY(run, role)
	);
	CREATE TABLE forgotten(
		key TEXT PRIMARY KEY,
		at  TEXT NOT NULL
	);`,
	// The tools on the machine, as the newest run (or hive init) found them.
	`CREATE TABLE tools(name TEXT PRIMARY KEY);`,
	// A role's computed confidence in the run, of 70 (-1: not scored).
	`ALTER TABLE role_stats ADD COLUMN confidence INTEGER NOT NULL DEFAULT -1;`,
}

// Store is an open memory.
type Store struct{ db *sql.DB }

// Open opens or creates the memory at path and migrates it.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("memory %s: %w", path, err)
	}
	q := "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: abs}).String()+"?"+q)
	if err != nil {
		return nil, fmt.Errorf("memory %s: %w", path, err)
	}
	s := &Store{db: db}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory %s: %w", path, err)
	}
	return s, nil
}

// Close closes the memory.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) migrate() error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("it was written by a newer hive (schema %d; this hive knows %d): upgrade hive, or move the file away (hive memory rebuild makes a new one from the journals)", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.Exec(migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

// Record replaces what the memory holds of f's run with f: recording a
// run twice (a rebuild) gives the same memory.
func (s *Store) Record(f Facts) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec("DELETE FROM runs WHERE run = ?", f.Run); err != nil {
		return err
	}
	if _, err := tx.Exec("INSERT INTO runs(run, objective, workflow, outcome, finished) VALUES(?, ?, ?, ?, ?)",
		f.Run, f.Objective, f.Workflow, f.Outcome, f.Finished.UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	for _, l := range f.Lessons {
		if _, err := tx.Exec("INSERT INTO lessons(run, kind, role, source, key, text, files, confirmed) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
			f.Run, l.Kind, l.Role, l.Source, l.Key(), l.Text, strings.Join(l.Files, "\n"), l.Confirmed); err != nil {
			return err
		}
	}
	for _, d := range f.Decisions {
		if _, err := tx.Exec("INSERT INTO decisions(run, role, question, choice, by) VALUES(?, ?, ?, ?, ?)",
			f.Run, d.Role, d.Question, d.Choice, d.By); err != nil {
			return err
		}
	}
	if f.Tools != nil {
		if err := setTools(tx, f.Tools); err != nil {
			return err
		}
	}
	for _, r := range f.Roles {
		if _, err := tx.Exec("INSERT INTO role_stats(run, role, attempts, challenged, fix_loops, tokens, cost_usd, confidence) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
			f.Run, r.Role, r.Attempts, r.Challenged, r.FixLoops, r.Tokens, r.CostUSD, r.Confidence); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SetTools records the tools found on the machine (hive init's scan).
func (s *Store) SetTools(tools []string) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := setTools(tx, tools); err != nil {
		return err
	}
	return tx.Commit()
}

func setTools(tx *sql.Tx, tools []string) error {
	if _, err := tx.Exec("DELETE FROM tools"); err != nil {
		return err
	}
	for _, t := range tools {
		if _, err := tx.Exec("INSERT OR IGNORE INTO tools(name) VALUES(?)", t); err != nil {
			return err
		}
	}
	return nil
}

// Tools are the tools last found on the machine.
func (s *Store) Tools() ([]string, error) {
	return queryAll(s.db, "SELECT name FROM tools ORDER BY name", func(r *sql.Rows, t *string) error { return r.Scan(t) })
}

// queryAll runs q and scans each row into a T.
func queryAll[T any](db *sql.DB, q string, scan func(*sql.Rows, *T) error, args ...any) ([]T, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Reset empties the memory (forgotten lessons stay forgotten), for a
// rebuild.
func (s *Store) Reset() error {
	_, err := s.db.Exec("DELETE FROM runs")
	return err
}

// ErrNoLesson is Forget's answer for an id the memory does not hold.
var ErrNoLesson = errors.New("no such lesson")

// Forget makes the lesson id (and every lesson of the same key, in any
// run) no warning again; it stays forgotten across rebuilds.
func (s *Store) Forget(id int64, now time.Time) (Lesson, error) {
	ls, err := s.lessons("WHERE l.id = ?", id)
	if err != nil {
		return Lesson{}, err
	}
	if len(ls) == 0 {
		return Lesson{}, ErrNoLesson
	}
	_, err = s.db.Exec("INSERT OR IGNORE INTO forgotten(key, at) VALUES(?, ?)", ls[0].Key(), now.UTC().Format(time.RFC3339))
	return ls[0], err
}

// Export is everything the memory holds, for hive memory export.
type Export struct {
	Runs    []RunRow `json:"runs"`
	Entries []Entry  `json:"lessons"`
	Tools   []string `json:"tools"`
}

// RunRow is one run the memory holds, with its decisions and figures.
type RunRow struct {
	Run       int64       `json:"run"`
	Objective string      `json:"objective"`
	Workflow  string      `json:"workflow"`
	Outcome   string      `json:"outcome"`
	Finished  string      `json:"finished"`
	Decisions []Decision  `json:"decisions,omitempty"`
	Roles     []RoleStats `json:"roles,omitempty"`
}

// Export reads the whole memory.
func (s *Store) Export() (Export, error) {
	var x Export
	var err error
	x.Runs, err = queryAll(s.db, "SELECT run, objective, workflow, outcome, finished FROM runs ORDER BY run", func(r *sql.Rows, v *RunRow) error {
		return r.Scan(&v.Run, &v.Objective, &v.Workflow, &v.Outcome, &v.Finished)
	})
	if err != nil {
		return x, err
	}
	for i := range x.Runs {
		r := &x.Runs[i]
		if r.Decisions, err = queryAll(s.db, "SELECT role, question, choice, by FROM decisions WHERE run = ? ORDER BY id", func(rows *sql.Rows, d *Decision) error {
			return rows.Scan(&d.Role, &d.Question, &d.Choice, &d.By)
		}, r.Run); err != nil {
			return x, err
		}
		if r.Roles, err = queryAll(s.db, "SELECT role, attempts, challenged, fix_loops, tokens, cost_usd, confidence FROM role_stats WHERE run = ? ORDER BY role", func(rows *sql.Rows, st *RoleStats) error {
			return rows.Scan(&st.Role, &st.Attempts, &st.Challenged, &st.FixLoops, &st.Tokens, &st.CostUSD, &st.Confidence)
		}, r.Run); err != nil {
			return x, err
		}
	}
	if x.Tools, err = s.Tools(); err != nil {
		return x, err
	}
	x.Entries, err = s.Entries("")
	return x, err
}

// Proven are the roles whose last n runs in this project (runs they
// worked in) each completed, the role scoring min or more of hive's
// checks at the first attempt, unchallenged and without fix loops: the roles a quick
// objective may leave out (seed 003 §3).
func (s *Store) Proven(n, min int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	type row struct {
		role string
		ok   bool
	}
	rows, err := queryAll(s.db, `SELECT role, confidence >= ? AND attempts <= 1 AND challenged = 0 AND fix_loops = 0 AND outcome = 'complete'
		FROM role_stats JOIN runs USING(run) ORDER BY role, run DESC`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.role, &r.ok)
	}, min)
	if err != nil {
		return nil, err
	}
	seen, good := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if seen[r.role] >= n {
			continue
		}
		seen[r.role]++
		if r.ok {
			good[r.role]++
		}
	}
	var out []string
	for role, k := range seen {
		if k == n && good[role] == n {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out, nil
}
