package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/workflows"
)

// evaluates says whether j's work is judged before it counts as done:
// every agent's but the interviewer's, in a run that evaluates.
func (m *Machine) evaluates(j *jobs.Job) bool {
	return m.spec.Routing.Evaluate && j.Type == "" && j.Role != workflows.RoleInterviewer
}

// evaluate has j's attempt judged; EvEvaluated comes back.
func (m *Machine) evaluate(j *jobs.Job) []roleplan.Command {
	j.State, j.Evaluating = roleplan.Checking, true
	return []roleplan.Command{{Type: roleplan.CmdEvaluate, Job: j.ID, Role: j.Role, Attempt: j.Attempts}}
}

// evaluated routes on a role's evaluation (seed 003 §3.2): warnings go to
// the roles after it; blocking gaps run the role once more with them; a
// second time, or a computed confidence under the floor, a human looks at
// the three verdicts first, and under the floor the rest of the run works
// one job at a time.
func (m *Machine) evaluated(ev roleplan.Event) ([]roleplan.Command, error) {
	j := m.jobs.Get(ev.Job)
	if j == nil || !j.Evaluating || j.State != roleplan.Checking || (ev.Attempt != 0 && ev.Attempt != j.Attempts) {
		return nil, fmt.Errorf("%s while %q is not being evaluated", ev.Type, ev.Job)
	}
	if ev.Evaluation == nil {
		return nil, fmt.Errorf("%s without its evaluation", ev.Type)
	}
	e := *ev.Evaluation
	j.Evaluating, j.Evaluated, j.Evaluation = false, j.Attempts, &e
	j.Spend = j.Spend.Plus(e.Spend)
	var verdicts []string
	for _, v := range e.Verdicts {
		verdicts = append(verdicts, v.Aspect+" "+words.First(v.Verdict, "none"))
		if v.Verdict == roleplan.VerdictWarn {
			for _, n := range v.Notes {
				m.warnings = append(m.warnings, fmt.Sprintf("%s (%s evaluator): %s", j.Role, v.Aspect, n))
			}
		}
	}
	out := []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("evaluated: %s; %s", e.Summary(), strings.Join(verdicts, ", "))}}
	options := []string{roleplan.AnswerContinue, roleplan.AnswerDetails, roleplan.AnswerReject, roleplan.AnswerAbort}
	withEval := func(cp *roleplan.Checkpoint) { cp.Evaluation = &e }
	if blocks := e.Blocking(); len(blocks) > 0 {
		j.EvalBlocks++
		if j.EvalBlocks == 1 {
			why := "the evaluators found blocking gaps in your work"
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("routing: %d blocking verdict(s): the %s works again with them", len(blocks), j.Role)})
			return append(out, m.redoWith(j, why, &roleplan.Context{Evaluation: blocks})...), nil
		}
		return append(out, m.ask(j, roleplan.KindEvaluation, fmt.Sprintf("the evaluators still find blocking gaps in the %s's work", j.Role),
			e.Text(false), options, withEval)...), nil
	}
	if floor := m.spec.Routing.Floor; floor > 0 && e.Confidence() < floor {
		if !m.serial {
			m.serial = true
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("routing: the %s's computed confidence %d is under the floor of %d: the rest of the run works one job at a time", j.Role, e.Confidence(), floor)})
		}
		return append(out, m.ask(j, roleplan.KindEvaluation, fmt.Sprintf("the %s's computed confidence is %d, under the floor of %d", j.Role, e.Confidence(), floor),
			e.Text(false), options, withEval)...), nil
	}
	return append(out, m.done(j, roleplan.Done)...), nil
}

// redoWith runs j's work again with ctx: a role agent itself; the phase
// through the implementer that fixes the merged result, after which the
// phase (its plans done) counts again.
func (m *Machine) redoWith(j *jobs.Job, why string, ctx *roleplan.Context) []roleplan.Command {
	if j.Phase {
		fixer := m.jobs.Implementer()
		out := m.sendBack(j, fixer, ctx, why+": the "+fixer.Role+" fixes the merged result")
		return append(out, m.advance()...)
	}
	next := j.Again(why)
	next.Evaluation, next.Feedback = ctx.Evaluation, ctx.Feedback
	j.Next = next
	return m.run(j)
}

// reviewAnswer applies continue, details or reject to a checkpoint that
// shows a role's work (its step's checkpoint, or its evaluation).
func (m *Machine) reviewAnswer(j *jobs.Job, cp *roleplan.Checkpoint, text string) ([]roleplan.Command, bool) {
	word, rest, _ := strings.Cut(text, " ")
	switch strings.ToLower(word) {
	case roleplan.AnswerDetails:
		again := *cp
		m.nextCP++
		again.ID, again.View = m.nextCP, true
		if again.Evaluation != nil {
			again.Details = again.Evaluation.Text(true)
		}
		m.open = &again
		j.State = roleplan.Waiting
		return []roleplan.Command{{Type: roleplan.CmdCheckpoint, Job: j.ID, Checkpoint: m.open}}, true
	case roleplan.AnswerReject:
		feedback := strings.TrimSpace(rest)
		j.Reviewed, j.EvalBlocks = false, 0
		note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "rejected by the human: " + words.OneLine(feedback)}
		return append([]roleplan.Command{note}, m.redoWith(j, "the human rejected your work", &roleplan.Context{Feedback: feedback})...), true
	case roleplan.AnswerContinue:
		j.Reviewed = true
		return m.done(j, roleplan.Done), true
	}
	return nil, false
}

// skippable are the roles a quick objective may leave out once proven:
// those that look at the work, never one that makes it or tests it.
var skippable = []string{workflows.RoleReviewer, workflows.RoleSecurity, workflows.RoleDocumenter, workflows.RoleBrowserValidator, workflows.RoleComb}

// provenOut is adaptive routing (seed 003 §3): in a quick-class objective,
// a step whose role is proven in this project (Routing.Proven) is left
// out, unless the workflow says "required": true of it.
func (m *Machine) provenOut(s workflows.Step) bool {
	r := m.spec.Routing
	return r.Quick && s.Type == "" && (s.Required == nil || !*s.Required) && slices.Contains(skippable, s.Role) && slices.Contains(r.Proven, s.Role)
}
