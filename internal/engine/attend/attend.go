package attend

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// Wait is when to stop for a human, as the process was told (EvRunStarted,
// EvResumed: see phase.Event.Attended), and how far it has gone.
type Wait struct {
	attended  bool
	wait      time.Duration
	needHuman bool      // an unattended run met a checkpoint only a human may answer
	idleSince time.Time // when the run began to wait for a human with nothing else to do
	stopping  bool      // CmdStopForHuman was given
}

// Started takes what a run-started event says of the process.
func (w *Wait) Started(ev phase.Event) { w.attended, w.wait = ev.Attended, ev.Wait }

// Resumed takes what a resumed event says of the new process, which has
// waited for nobody yet.
func (w *Wait) Resumed(ev phase.Event) {
	w.attended, w.wait = ev.Attended, ev.Wait
	w.needHuman, w.idleSince, w.stopping = false, time.Time{}, false
}

// NeedHuman notes that an unattended run met a checkpoint only a human
// may answer.
func (w *Wait) NeedHuman() { w.needHuman = true }

// Idle decides, at now, whether the run stops for a human: no plan is
// running (running), so nothing can go on without an answer to the open
// checkpoints (queued), and this process is not attended, nor waiting for
// a provider's limit (limited), and either only a human may answer (an
// unattended run met such a checkpoint) or nobody answered with `hive
// answer` within the process's wait. running is asked only when needed.
func (w *Wait) Idle(out []phase.Command, now time.Time, queued, limited bool, running func() bool) []phase.Command {
	if w.stopping && running() {
		// Work goes on after a stop for a human without a resume: a
		// workflow that outlived its stop was answered. Its next stop is
		// a new one.
		w.stopping = false
	}
	if !queued || w.stopping || w.attended || running() || limited {
		w.idleSince = time.Time{}
		return out
	}
	switch {
	case w.needHuman || w.wait == 0:
	case w.wait < 0:
		return out
	case w.idleSince.IsZero():
		w.idleSince = now
		return append(out,
			phase.Command{Type: phase.CmdNote, Text: fmt.Sprintf("waiting up to %s for an answer (hive answer PLAN \"...\" from another terminal); then the run stops and keeps the checkpoint", w.wait)},
			phase.Command{Type: phase.CmdWake, At: now.Add(w.wait)})
	case now.Before(w.idleSince.Add(w.wait)):
		return out
	}
	w.stopping = true
	return append(out, phase.Command{Type: phase.CmdStopForHuman})
}

// Record is the wait as plain data, for the engine's export.
func (w *Wait) Record() phase.HumanWait {
	return phase.HumanWait{Attended: w.attended, Wait: w.wait, NeedHuman: w.needHuman, IdleSince: w.idleSince, Stopping: w.stopping}
}

// Restore is the wait that h records.
func Restore(h phase.HumanWait) Wait {
	return Wait{attended: h.Attended, wait: h.Wait, needHuman: h.NeedHuman, idleSince: h.IdleSince, stopping: h.Stopping}
}
