package runjournal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// AnswerError refuses an answer that does not fit the open question.
type AnswerError struct{ Err error }

func (e *AnswerError) Error() string { return e.Err.Error() }

// ErrNoRun says there is no unfinished run to resume.
var ErrNoRun = errors.New("no unfinished hive run to resume: start one with hive run \"objective\"")

// Answer journals an answer to the open question of the newest unfinished
// run, asked of job, as `hive answer` gives it: checked first, so that the
// journal never holds one the run would refuse. A waiting hive run applies
// it at once; a stopped one when it is resumed.
func Answer(j journal.Journal, job, text string, now time.Time) (journal.Run, roleplan.Checkpoint, error) {
	run, ok, err := Latest(j)
	if err != nil {
		return run, roleplan.Checkpoint{}, err
	}
	if !ok || !run.Finished.IsZero() {
		return run, roleplan.Checkpoint{}, ErrNoRun
	}
	m, err := Replay(j, run)
	if err != nil {
		return run, roleplan.Checkpoint{}, err
	}
	ev, open, err := AnswerEvent(m.Snapshot(), run.ID, job, text, now)
	if err != nil {
		return run, open, err
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return run, open, err
	}
	_, err = j.Append(run.ID, string(ev.Type), ev.Time, payload)
	return run, open, err
}

// AnswerEvent is the answer to the question of job that snap, run's
// state, has open, checked as hive answer checks it (an *AnswerError when
// it would be refused).
func AnswerEvent(snap roleplan.Snapshot, run int64, job, text string, now time.Time) (roleplan.Event, roleplan.Checkpoint, error) {
	open := snap.Open
	switch {
	case open == nil:
		return roleplan.Event{}, roleplan.Checkpoint{}, &AnswerError{fmt.Errorf("run %d asks nothing now", run)}
	case open.Job != job:
		return roleplan.Event{}, *open, &AnswerError{fmt.Errorf("run %d asks %s, not %s: hive answer %s \"...\"", run, open.Job, job, open.Job)}
	}
	if err := open.Check(text); err != nil {
		return roleplan.Event{}, *open, &AnswerError{err}
	}
	return roleplan.Event{Type: roleplan.EvAnswer, Time: now.UTC(), Job: job, Checkpoint: open.ID, Text: strings.TrimSpace(text)}, *open, nil
}

// IsRunJob reports whether id names a job of hive run (a role, or the
// implementers' phase), not a plan.
func IsRunJob(id string) bool {
	return id == roleplan.PhaseJob || id == roleplan.FixJob || slices.Contains(workflows.Roles, id)
}
