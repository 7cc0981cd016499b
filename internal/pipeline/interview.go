package pipeline

import (
	"fmt"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// interviewed asks the human the interviewer's questions, each its own
// checkpoint; with --yes their defaults are taken. None: the objective is
// clear, and the interview is over.
func (m *Machine) interviewed(j *jobs.Job, r *work.Report) []roleplan.Command {
	qs := roleplan.Questions(r)
	if len(qs) == 0 {
		return m.done(j, roleplan.Done)
	}
	var out []roleplan.Command
	for _, q := range qs {
		if m.spec.AutoAnswer {
			m.decisions = append(m.decisions, roleplan.Decision{Job: j.ID, Question: q.Question, Options: q.Options, Choice: words.First(q.Default, first(q.Options)), By: "default"})
			continue
		}
		j.Asked++
		def := q.Default
		out = append(out, m.ask(j, roleplan.KindNeedsInput, q.Question, q.Why, q.Options, func(cp *roleplan.Checkpoint) { cp.Default, cp.Interview = def, true })...)
	}
	if j.Asked == 0 {
		return append(out, m.done(j, roleplan.Done)...)
	}
	return append([]roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("the interviewer asks %d question(s)", j.Asked)}}, out...)
}

// answered records the answer to one of the interviewer's questions; the
// interview is over once all are answered.
func (m *Machine) answered(j *jobs.Job, d roleplan.Decision) []roleplan.Command {
	m.decisions = append(m.decisions, d)
	j.Asked--
	if j.Asked > 0 {
		j.State = roleplan.Waiting // the next question is asked
		return nil
	}
	return m.done(j, roleplan.Done)
}

// interview is what the human answered the interviewer: every later role
// is told.
func (m *Machine) interview() []roleplan.Decision {
	var out []roleplan.Decision
	for _, d := range m.decisions {
		if j := m.jobs.Get(d.Job); j != nil && j.Role == workflows.RoleInterviewer {
			out = append(out, d)
		}
	}
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
