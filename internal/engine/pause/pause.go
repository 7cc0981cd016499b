package pause

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// StaleHandoff is how old a pause may be before a resume warns that the
// state it goes on from may be stale (seed 001: older than an hour).
const StaleHandoff = time.Hour

// State is where a pause stands.
type State struct {
	pausing, paused bool
	at              time.Time // when it was asked, for the resume's staleness
}

// Ask asks, at now, for a pause of a run (finished: it is over), and
// says what it does; ok is false when the run pauses already.
func (s *State) Ask(now time.Time, finished bool) (note phase.Command, ok bool) {
	if s.pausing || finished {
		return phase.Command{Type: phase.CmdNote, Text: "already pausing"}, false
	}
	s.pausing, s.at = true, now
	return phase.Command{Type: phase.CmdNote, Text: "pausing: every agent commits its work in progress and stops; resume to go on"}, true
}

// Pausing reports whether a pause was asked for and no resume came since.
func (s *State) Pausing() bool { return s.pausing }

// Paused reports whether the pause is done: no agent runs any more.
func (s *State) Paused() bool { return s.paused }

// Cancel forgets a pause that had nothing left to pause: the run finishes.
func (s *State) Cancel() { s.pausing = false }

// Done notes that no agent runs any more: the process stops (CmdPaused).
func (s *State) Done(out []phase.Command) []phase.Command {
	s.paused = true
	return append(out, phase.Command{Type: phase.CmdPaused, Reason: fmt.Sprintf("paused at %s", s.at.UTC().Format(time.RFC3339))})
}

// Resume ends a pause at a resume at now, warning when it is old: what
// the team knew may have changed meanwhile.
func (s *State) Resume(out []phase.Command, now time.Time) []phase.Command {
	if s.at.IsZero() {
		return out
	}
	if age := now.Sub(s.at); age > StaleHandoff {
		out = append(out, phase.Command{Type: phase.CmdNote, Text: fmt.Sprintf("Handoff is %d hours old. Proceeding with potentially stale state.", int(age/time.Hour))})
	}
	*s = State{}
	return out
}

// Show puts the pause into snap.
func (s *State) Show(snap *phase.Snapshot) {
	snap.Pausing, snap.Paused, snap.PausedAt = s.pausing, s.paused, s.at
}

// Record is the pause as plain data, for the engine's export.
func (s *State) Record() phase.PauseRecord {
	return phase.PauseRecord{Pausing: s.pausing, Paused: s.paused, At: s.at}
}

// Restore is the pause that r records.
func Restore(r phase.PauseRecord) State { return State{pausing: r.Pausing, paused: r.Paused, at: r.At} }
