package memory

import (
	"database/sql"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Bounds of the warnings one role is given.
const (
	// MinRecurrence: a lesson warns once it happened in this many runs;
	// a one-off is no pattern, and a memory that repeats guesses makes
	// agents worse.
	MinRecurrence = 2
	MaxWarnings   = 5
	MaxWarnBytes  = 1500
)

// Entry is a lesson as the memory holds it across runs: every run it
// happened in.
type Entry struct {
	ID        int64    `json:"id"` // its latest lesson's: hive memory forget ID
	Key       string   `json:"key"`
	Kind      string   `json:"kind"`
	Role      string   `json:"role"`
	Source    string   `json:"source"`
	Text      string   `json:"text"`
	Files     []string `json:"files,omitempty"`
	Runs      []int64  `json:"runs"`
	Confirmed bool     `json:"confirmed"` // proved real and fixed in one of them
	Forgotten bool     `json:"forgotten,omitempty"`
}

// Warning is what a role is told of an entry.
func (e Entry) Warning() string {
	what := ""
	switch e.Kind {
	case KindTests, KindBuild:
		what = fmt.Sprintf("after the %s's work %s", e.Role, e.Text)
	case KindChallenge:
		what = fmt.Sprintf("the %s challenged the %s's work: %s", e.Source, e.Role, e.Text)
	case KindFinding:
		what = fmt.Sprintf("the %s found in the %s's work: %s", e.Source, e.Role, e.Text)
	default:
		what = e.Text
	}
	if len(e.Files) > 0 {
		what += " (files: " + strings.Join(e.Files, ", ") + ")"
	}
	return fmt.Sprintf("In %d earlier runs (last: run %d) %s", len(e.Runs), e.Runs[len(e.Runs)-1], what)
}

func (s *Store) lessons(where string, args ...any) ([]Lesson, error) {
	return queryAll(s.db, `SELECT l.id, l.run, l.kind, l.role, l.source, l.text, l.files, l.confirmed FROM lessons l `+where+` ORDER BY l.run, l.id`,
		func(r *sql.Rows, l *Lesson) error {
			var files string
			if err := r.Scan(&l.ID, &l.Run, &l.Kind, &l.Role, &l.Source, &l.Text, &files, &l.Confirmed); err != nil {
				return err
			}
			if files != "" {
				l.Files = strings.Split(files, "\n")
			}
			return nil
		}, args...)
}

// Entries are the memory's lessons by key, most recurrent first; a role
// ("" for all) narrows them.
func (s *Store) Entries(role string) ([]Entry, error) {
	where, args := "", []any{}
	if role != "" {
		where, args = "WHERE l.role = ?", []any{role}
	}
	ls, err := s.lessons(where, args...)
	if err != nil {
		return nil, err
	}
	keys, err := queryAll(s.db, "SELECT key FROM forgotten", func(r *sql.Rows, k *string) error { return r.Scan(k) })
	if err != nil {
		return nil, err
	}
	forgotten := map[string]bool{}
	for _, k := range keys {
		forgotten[k] = true
	}
	byKey := map[string]*Entry{}
	var order []string
	for _, l := range ls { // oldest first: the latest text and id win
		k := l.Key()
		e := byKey[k]
		if e == nil {
			e = &Entry{Key: k, Kind: l.Kind, Role: l.Role, Forgotten: forgotten[k]}
			byKey[k] = e
			order = append(order, k)
		}
		e.ID, e.Source, e.Text = l.ID, l.Source, l.Text
		e.Confirmed = e.Confirmed || l.Confirmed
		if !slices.Contains(e.Runs, l.Run) {
			e.Runs = append(e.Runs, l.Run)
		}
		for _, f := range l.Files {
			if !slices.Contains(e.Files, f) && len(e.Files) < 5 {
				e.Files = append(e.Files, f)
			}
		}
	}
	out := make([]Entry, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	sort.SliceStable(out, func(a, b int) bool {
		if len(out[a].Runs) != len(out[b].Runs) {
			return len(out[a].Runs) > len(out[b].Runs)
		}
		return out[a].Runs[len(out[a].Runs)-1] > out[b].Runs[len(out[b].Runs)-1]
	})
	return out, nil
}

// Warnings picks what role is warned of before it starts: entries of its
// role, not forgotten, that recurred in MinRecurrence runs or more,
// ranked by recurrence, then by overlap with the files in scope (by path
// or base name), then by recency, then by key; at most MaxWarnings within
// MaxWarnBytes. The same memory and scope always give the same warnings.
func (s *Store) Warnings(role string, scope []string) ([]Entry, error) {
	all, err := s.Entries(role)
	if err != nil {
		return nil, err
	}
	var cand []Entry
	for _, e := range all {
		if !e.Forgotten && len(e.Runs) >= MinRecurrence && e.Kind != KindLearning {
			cand = append(cand, e)
		}
	}
	overlap := func(e Entry) int {
		n := 0
		for _, f := range e.Files {
			for _, sc := range scope {
				if f == sc || path.Base(f) == path.Base(sc) {
					n++
					break
				}
			}
		}
		return n
	}
	sort.SliceStable(cand, func(a, b int) bool {
		ea, eb := cand[a], cand[b]
		if len(ea.Runs) != len(eb.Runs) {
			return len(ea.Runs) > len(eb.Runs)
		}
		if oa, ob := overlap(ea), overlap(eb); oa != ob {
			return oa > ob
		}
		if la, lb := ea.Runs[len(ea.Runs)-1], eb.Runs[len(eb.Runs)-1]; la != lb {
			return la > lb
		}
		return ea.Key < eb.Key
	})
	var out []Entry
	size := 0
	for _, e := range cand {
		if len(out) == MaxWarnings || size+len(e.Warning()) > MaxWarnBytes {
			break
		}
		size += len(e.Warning())
		out = append(out, e)
	}
	return out, nil
}

// Learning is the entry as a line of CLAUDE.md's Hive Learnings, for any
// session on the project, not only hive's roles.
func (e Entry) Learning() string {
	var what string
	switch e.Kind {
	case KindTests:
		what = fmt.Sprintf("The %s's work broke the tests until it was fixed (%s)", e.Role, strings.TrimPrefix(e.Text, "the tests failed: "))
	case KindBuild:
		what = fmt.Sprintf("The %s's work broke the build until it was fixed: %s", e.Role, strings.TrimPrefix(e.Text, "the build "))
	case KindChallenge:
		what = fmt.Sprintf("The %s challenged the %s's work, and it was changed: %s", e.Source, e.Role, e.Text)
	case KindFinding:
		what = fmt.Sprintf("The %s found, and the %s fixed: %s", e.Source, e.Role, e.Text)
	case KindLearning:
		what = strings.TrimSuffix(e.Text, ".")
		e.Files = nil // the advice names them
	default:
		what = e.Text
	}
	if len(e.Files) > 0 {
		what += "; mind " + strings.Join(e.Files, ", ")
	}
	runs := "run"
	if len(e.Runs) > 1 {
		runs = fmt.Sprintf("%d runs, last", len(e.Runs))
	}
	return fmt.Sprintf("%s (%s %d).", what, runs, e.Runs[len(e.Runs)-1])
}

// Learnings are the lines of CLAUDE.md's Hive Learnings: entries a run
// proved real and fixed (an unverified one never), not forgotten, most
// recurrent first, then most recent; at most max.
func (s *Store) Learnings(max int) ([]string, error) {
	all, err := s.Entries("")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range all { // Entries: most recurrent, then most recent, first
		if e.Confirmed && !e.Forgotten && len(out) < max {
			out = append(out, e.Learning())
		}
	}
	return out, nil
}
