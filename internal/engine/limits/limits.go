package limits

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// Rules is the engine version from which a turn that ended on the
// provider's limit (EvLimited) makes the run wait rather than fail.
const Rules = 9

// Wait is the run's wait for its provider's limits.
type Wait struct{ work.Waits }

// Met reads ev, a turn that ended on the provider's limit, at now, under
// the rules of engine version rules and the run's onLimit. The turn goes
// the way a failed turn goes (failed, a PLAN FAILED saying why) when its
// limit does not pass with time (a login the provider refused) or the
// rules predate waiting (waits false); otherwise the run waits for the
// limit to pass, or falls back, and the notes returned say so.
func (w *Wait) Met(ev phase.Event, now time.Time, rules int, onLimit work.OnLimit) (out []phase.Command, failed phase.Event, waits bool) {
	l := *ev.Limit
	failed = ev
	failed.Type, failed.Reason = phase.EvPlanFailed, "the agent's turn ended on the provider's "+l.Describe()
	if rules < Rules || !l.Kind.Passes() {
		if l.Kind == work.LimitAuth {
			failed.Reason += ": fix the CLI's login or key, then answer retry"
		}
		return nil, failed, false
	}
	if w.FallBack(onLimit, l) {
		// No wait: the job starts again at once, on the fallback agent.
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: ev.Plan, Text: work.FallbackNote(l)})
	} else if w.Meet(now, ev.Plan, l) {
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: ev.Plan, Text: w.Wait.Note(now)}, phase.Command{Type: phase.CmdWake, At: w.Wait.Until})
	}
	return out, failed, true
}

// Restart is why a plan whose agent met limit l goes back to the queue:
// to go on from its commits once the wait is over, or on the fallback
// agent.
func (w *Wait) Restart(l work.Limit) string {
	then := "once the wait is over"
	if w.Wait == nil {
		then = "on the fallback agent"
	}
	return fmt.Sprintf("the provider's %s stopped the agent: the plan goes on from its commits %s", l.Describe(), then)
}

// Wake ends the wait once its time has come, at now, and says so; over
// reports that it ended, and what it held may start again.
func (w *Wait) Wake(out []phase.Command, now time.Time) ([]phase.Command, bool) {
	lw, over := w.Over(now)
	if !over {
		return out, false
	}
	return append(out, phase.Command{Type: phase.CmdNote, Text: lw.Ended(now)}), true
}

// Answer ends the wait at now, as a human asked (`hive answer limit
// resume-now`, ev): the plans go on, and meet the limit again if it has
// not passed.
func (w *Wait) Answer(ev phase.Event, now time.Time) ([]phase.Command, error) {
	by := ev.By
	if by == "" {
		by = "a human"
	}
	note, err := w.ResumeNow(now, ev.Text, by)
	if err != nil {
		return nil, err
	}
	return []phase.Command{{Type: phase.CmdNote, Text: note}}, nil
}

// Resumed asks again, after a resume at now, to be woken when the wait
// ends (the timer died with the process); due reports that its time has
// passed already: it is to be woken now.
func (w *Wait) Resumed(out []phase.Command, now time.Time) (_ []phase.Command, due bool) {
	lw := w.Wait
	if lw == nil {
		return out, false
	}
	if !now.Before(lw.Until) {
		return out, true
	}
	return append(out, phase.Command{Type: phase.CmdNote, Text: "still " + lw.Note(now)}, phase.Command{Type: phase.CmdWake, At: lw.Until}), false
}
