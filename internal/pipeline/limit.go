package pipeline

import (
	"fmt"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

// limited handles a role's turn that ended on its provider's limit (rules
// 2). A limit that passes with time makes the run wait: the role's agent is
// stopped, the role runs again from its commits once the wait is over, and
// no crash is counted; the roles at work go on. A refused login asks the
// human. Under older rules the agent's exit without a report goes on to
// count as a crash, as it did.
func (m *Machine) limited(j *jobs.Job, ev roleplan.Event) []roleplan.Command {
	if m.spec.Rules < limitRules || ev.Limit == nil || j.State != roleplan.Running {
		return nil
	}
	l := *ev.Limit
	if j.Phase {
		return m.phaseLimited(j, l)
	}
	stop := roleplan.Command{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID, Interrupt: true, Text: "the provider's " + l.Describe()}
	if !l.Kind.Passes() {
		j.Interrupted = true
		return append([]roleplan.Command{stop}, m.ask(j, roleplan.KindBlocked, fmt.Sprintf("the provider refused the %s's login (%s): fix the CLI's login or key, then answer retry", j.Role, l.Text),
			"", []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})...)
	}
	if m.spec.Rules >= fallbackRules && m.waits.FallBack(m.spec.OnLimit, l) {
		// No wait: the role starts again on the fallback agent once this
		// one has exited (the run's worktree is one agent's at a time).
		j.Switching, j.Next = true, j.CutOff(fmt.Sprintf("the provider's %s stopped the previous attempt; you go on in its place: go on from the commits it made", l.Describe()))
		return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: work.FallbackNote(l)}, stop}
	}
	var out []roleplan.Command
	if m.waits.Meet(m.now, j.ID, l) {
		out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: m.waits.Wait.Note(m.now)}, roleplan.Command{Type: roleplan.CmdWake, At: m.waits.Wait.Until})
	}
	j.State, j.Next = roleplan.Pending, j.CutOff(fmt.Sprintf("the provider's %s stopped the previous attempt; the wait is over: go on from the commits it made", l.Describe()))
	return append(out, stop)
}

// phaseLimited takes the phase that stopped at a usage limit (rules 3; the
// shell's limits.on_limit stop: its own engine waits otherwise): the run
// waits for it, and the phase goes on from its journal once it is over.
func (m *Machine) phaseLimited(j *jobs.Job, l work.Limit) []roleplan.Command {
	if m.spec.Rules < fallbackRules || !l.Kind.Passes() {
		return nil
	}
	var out []roleplan.Command
	if m.waits.Meet(m.now, j.ID, l) {
		out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: m.waits.Wait.Note(m.now)}, roleplan.Command{Type: roleplan.CmdWake, At: m.waits.Wait.Until})
	}
	j.State = roleplan.Pending
	return out
}

// waiting says whether the run waits for its provider: no session starts.
func (m *Machine) waiting() bool { return m.waits.Wait != nil }

// wake ends the wait once its time has come, and starts what it held.
func (m *Machine) wake() []roleplan.Command {
	w, over := m.waits.Over(m.now)
	if !over {
		return nil
	}
	return append([]roleplan.Command{{Type: roleplan.CmdNote, Job: w.Job, Text: w.Ended(m.now)}}, m.advance()...)
}

// resumeNow ends the wait at once, as a human asked.
func (m *Machine) resumeNow(ev roleplan.Event) ([]roleplan.Command, error) {
	note, err := m.waits.ResumeNow(m.now, ev.Text, "")
	if err != nil {
		return nil, err
	}
	return append([]roleplan.Command{{Type: roleplan.CmdNote, Text: note}}, m.wake()...), nil
}

// limitResumed asks again, after a resume, to be woken when the wait ends.
func (m *Machine) limitResumed() []roleplan.Command {
	w := m.waits.Wait
	if w == nil {
		return nil
	}
	if !m.now.Before(w.Until) {
		w, _ := m.waits.Over(m.now)
		return []roleplan.Command{{Type: roleplan.CmdNote, Job: w.Job, Text: w.Ended(m.now)}}
	}
	return []roleplan.Command{{Type: roleplan.CmdNote, Job: w.Job, Text: "still " + w.Note(m.now)}, {Type: roleplan.CmdWake, At: w.Until}}
}

// limitWait is what Snapshot shows of the wait.
func (m *Machine) limitWait() *work.LimitWait { return m.waits.Clone().Wait }
