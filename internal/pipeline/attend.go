package pipeline

import (
	"time"

	"github.com/hivectl/hive/internal/roleplan"
)

// attendance is when a run whose question nobody answers stops for a
// human: the wait its process gave (roleplan.Event.Wait; nil: its shell
// decides, as a hive before did), and how far the wait for the open
// question has gone.
type attendance struct {
	wait     *time.Duration
	question int       // the open question waited for
	since    time.Time // when the wait for it began
	stopping bool      // CmdStopForHuman was given for it
}

// idle decides, after each event, at now, whether the run stops for a
// human at open: at once with a zero wait, never with a negative one,
// else once the wait has passed since the question opened (a wake at
// its end says when).
func (a *attendance) idle(open *roleplan.Checkpoint, now time.Time) []roleplan.Command {
	if a.wait == nil || open == nil {
		a.question, a.since, a.stopping = 0, time.Time{}, false
		return nil
	}
	wait := *a.wait
	if open.ID != a.question {
		a.question, a.since, a.stopping = open.ID, now, false
		if wait > 0 {
			return []roleplan.Command{{Type: roleplan.CmdWake, Job: open.Job, At: now.Add(wait)}}
		}
	}
	if a.stopping || wait < 0 || (wait > 0 && now.Before(a.since.Add(wait))) {
		return nil
	}
	a.stopping = true
	return []roleplan.Command{{Type: roleplan.CmdStopForHuman, Job: open.Job, Checkpoint: open}}
}
