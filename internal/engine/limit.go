package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// limitRules is the engine version from which a turn that ended on the
// provider's limit (EvLimited) makes the run wait rather than fail.
const limitRules = 9

// limited handles a turn that ended on the provider's limit (rules 9): a
// limit that passes with time makes the run wait (work.Waits), and the
// plan's agent is stopped and its plan goes back to the queue, to go on
// from its commits when the wait ends, without spending a retry. A login
// the provider refused, and a limit met by a resolver or the verifier, go
// the way a failed turn goes.
func (e *Engine) limited(ev phase.Event) ([]phase.Command, error) {
	if ev.Limit == nil {
		return nil, fmt.Errorf("limited %s without its limit", ev.Plan)
	}
	p := e.byID[ev.Plan]
	switch {
	case p != nil && (ev.Attempt != p.Attempt || p.State != phase.Running && p.State != phase.Waiting):
		return nil, nil // an earlier attempt's, or one whose limit was met already (codex says it twice)
	case ev.Plan == phase.VerifyID && !e.vj.Working(ev.Attempt):
		return nil, nil
	}
	l := *ev.Limit
	failed := ev
	failed.Type, failed.Reason = phase.EvPlanFailed, "the agent's turn ended on the provider's "+l.Describe()
	if e.rules < limitRules || !l.Kind.Passes() {
		if l.Kind == work.LimitAuth {
			failed.Reason += ": fix the CLI's login or key, then answer retry"
		}
		return e.step(failed)
	}
	var out []phase.Command
	if e.waits.FallBack(e.spec.OnLimit, l) {
		// No wait: the job starts again at once, on the fallback agent.
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: ev.Plan, Text: work.FallbackNote(l)})
	} else if e.waits.Meet(e.now, ev.Plan, l) {
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: ev.Plan, Text: e.waits.Wait.Note(e.now)}, phase.Command{Type: phase.CmdWake, At: e.waits.Wait.Until})
	}
	if p == nil || p.State != phase.Running || p.Stage != phase.StageWork || p.Check != phase.CheckNone {
		// A resolver's, the verifier's, or an agent's at a checkpoint: the
		// wait holds what starts next; the job goes the way a failed turn
		// does.
		cmds, err := e.step(failed)
		return append(out, cmds...), err
	}
	out = p.Interrupt(out, "the provider's "+l.Describe())
	then := "once the wait is over"
	if e.waits.Wait == nil {
		then = "on the fallback agent"
	}
	return e.schedule(e.restart(out, p, fmt.Sprintf("the provider's %s stopped the agent: the plan goes on from its commits %s", l.Describe(), then))), nil
}

// limitWake ends the wait once its time has come, and starts again what
// it held.
func (e *Engine) limitWake(out []phase.Command) []phase.Command {
	w, over := e.waits.Over(e.now)
	if !over {
		return out
	}
	out = append(out, phase.Command{Type: phase.CmdNote, Text: w.Ended(e.now)})
	if e.budget.Open() != nil {
		return out // the budget still holds them
	}
	return e.unhold(out)
}

// limitAnswered ends the wait at once, as a human asked (`hive answer limit
// resume-now`): the plans go on, and meet the limit again if it has not
// passed.
func (e *Engine) limitAnswered(ev phase.Event) ([]phase.Command, error) {
	by := ev.By
	if by == "" {
		by = "a human"
	}
	note, err := e.waits.ResumeNow(e.now, ev.Text, by)
	if err != nil {
		return nil, err
	}
	return e.schedule(e.limitWake([]phase.Command{{Type: phase.CmdNote, Text: note}})), nil
}

// limitResumed asks again, after a resume, to be woken when the wait ends
// (the timer died with the process), or ends it when its time has passed.
func (e *Engine) limitResumed(out []phase.Command) []phase.Command {
	w := e.waits.Wait
	if w == nil {
		return out
	}
	if !e.now.Before(w.Until) {
		return e.limitWake(out)
	}
	return append(out, phase.Command{Type: phase.CmdNote, Text: "still " + w.Note(e.now)}, phase.Command{Type: phase.CmdWake, At: w.Until})
}
