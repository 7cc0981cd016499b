package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// Question is one of the interviewer's multiple-choice questions.
type Question struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Default  string   `json:"default,omitempty"`
	Why      string   `json:"why,omitempty"`
}

// maxQuestions is how many of the interviewer's questions are asked: its
// prompt asks for 3 to 6, and a babbling one does not get a human to
// answer twenty.
const maxQuestions = 6

// Questions reads the interviewer's questions from its report.
func Questions(r *work.Report) []Question {
	var qs []Question
	if r == nil || json.Unmarshal(r.Extra["questions"], &qs) != nil {
		return nil
	}
	var out []Question
	for _, q := range qs {
		if strings.TrimSpace(q.Question) != "" {
			out = append(out, q)
		}
	}
	return out[:min(len(out), maxQuestions)]
}

// interviewed asks the human the interviewer's questions, each its own
// checkpoint; with --yes their defaults are taken. None: the objective is
// clear, and the interview is over.
func (m *Machine) interviewed(j *job, r *work.Report) []Command {
	qs := Questions(r)
	if len(qs) == 0 {
		return m.done(j, Done)
	}
	var out []Command
	for _, q := range qs {
		if m.spec.AutoAnswer {
			m.decisions = append(m.decisions, Decision{Job: j.ID, Question: q.Question, Options: q.Options, Choice: firstOf(q.Default, first(q.Options)), By: "default"})
			continue
		}
		j.asked++
		def := q.Default
		out = append(out, m.ask(j, KindNeedsInput, q.Question, q.Why, q.Options, func(cp *Checkpoint) { cp.Default, cp.Interview = def, true })...)
	}
	if j.asked == 0 {
		return append(out, m.done(j, Done)...)
	}
	return append([]Command{{Type: CmdNote, Job: j.ID, Text: fmt.Sprintf("the interviewer asks %d question(s)", j.asked)}}, out...)
}

// answered records the answer to one of the interviewer's questions; the
// interview is over once all are answered.
func (m *Machine) answered(j *job, d Decision) []Command {
	m.decisions = append(m.decisions, d)
	j.asked--
	if j.asked > 0 {
		j.State = Waiting // the next question is asked
		return nil
	}
	return m.done(j, Done)
}

// interview is what the human answered the interviewer: every later role
// is told.
func (m *Machine) interview() []Decision {
	var out []Decision
	for _, d := range m.decisions {
		if j := m.byID[d.Job]; j != nil && j.Role == RoleInterviewer {
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
