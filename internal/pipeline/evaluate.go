package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/work"
)

// Routing tunes the rules that route a run on evidence (seed 003 §3.2,
// §3.3): hive's own checks and three evaluators after each role, a floor
// of computed confidence, roles proven in this project.
type Routing struct {
	// Evaluate: after each role's work hive runs its mechanical checks
	// (70 points) and three evaluators judge it (30): completeness,
	// coherence, risk.
	Evaluate bool `json:"evaluate,omitempty"`
	// Floor is the computed confidence (of 100) under which the rest of
	// the run works one job at a time and a human looks first; 0: none.
	Floor int `json:"confidence_floor,omitempty"`
	// Proven are the roles whose recent runs in this project all passed
	// with high confidence: a quick objective leaves them out (never a
	// tester).
	Proven []string `json:"proven,omitempty"`
	// Quick says the objective is quick-class (a typo, a small change).
	Quick bool `json:"quick,omitempty"`
}

// RoleEvaluator is the cheap model's role that judges a role's work from
// one aspect (seed 003 §3.2); it is no step of a workflow.
const RoleEvaluator = "evaluator"

// The evaluators' aspects (seed 003 §3.2).
const (
	AspectCompleteness = "completeness" // the objective's nouns and verbs addressed, or missing
	AspectCoherence    = "coherence"    // what the next role would need to ask
	AspectRisk         = "risk"         // the likeliest way it fails in production
)

// Aspects are the three evaluators, in the order they are shown.
var Aspects = []string{AspectCompleteness, AspectCoherence, AspectRisk}

// An evaluator's verdicts.
const (
	VerdictOK    = "ok"
	VerdictWarn  = "warn"
	VerdictBlock = "block"
)

// VerdictPoints is what each evaluator's verdict is worth: three make the
// 30 points of computed confidence that are not hive's own checks.
const VerdictPoints = 10

// Verdict is one evaluator's judgement of a role's work.
type Verdict struct {
	Aspect  string   `json:"aspect"`
	Verdict string   `json:"verdict"` // ok, warn, block; "" when the evaluator gave none (Error)
	Notes   []string `json:"notes,omitempty"`
	// Error says why the evaluator gave no verdict (it crashed, timed out
	// or answered out of its contract): no evidence either way.
	Error  string `json:"error,omitempty"`
	Tokens int64  `json:"tokens,omitempty"`
	// Spend is what the evaluator's call cost; the evaluation's Spend sums
	// the three.
	Spend work.Spend `json:"spend,omitzero"`
}

// Points is what the verdict adds to the computed confidence: all for ok,
// half for a warning or for no verdict, none for a block.
func (v Verdict) Points() int {
	switch v.Verdict {
	case VerdictOK:
		return VerdictPoints
	case VerdictBlock:
		return 0
	}
	return VerdictPoints / 2
}

// Line is "Coherence: ⚠ unclear how tokens refresh", as a checkpoint shows it.
func (v Verdict) Line() string {
	mark, text := "✓", strings.Join(v.Notes, "; ")
	switch v.Verdict {
	case VerdictWarn:
		mark = "⚠"
	case VerdictBlock:
		mark = "✗"
	case VerdictOK:
		if text == "" {
			text = "no concern"
		}
	default:
		mark, text = "?", "no verdict ("+v.Error+")"
	}
	name := upperFirst(v.Aspect) + ":"
	return fmt.Sprintf("%-13s %s %s", name, mark, oneLine(text))
}

// Evaluation is a role's work judged: hive's mechanical checks (of 70),
// the three evaluators' verdicts (of 30), and what the role produced.
type Evaluation struct {
	Role string `json:"role"`
	// Checks is the role's mechanical score; none for a role hive has no
	// checks for (the evaluators then decide alone).
	Checks   *confidence.Score `json:"checks,omitempty"`
	Verdicts []Verdict         `json:"verdicts"`
	// Produced says what the role made ("2 plans, 5 tasks", "3 files
	// changed", "2 findings").
	Produced string `json:"produced,omitempty"`
	// SelfReported is the agent's own confidence, recorded: it never routes.
	SelfReported float64 `json:"self_reported,omitempty"`
	// Spend is what the evaluators' calls cost: the job's spend, which
	// the budget counts.
	Spend work.Spend `json:"spend,omitzero"`
}

// Confidence is the computed confidence, of 100: the checks' points and
// the verdicts'; a role without checks is judged by the verdicts alone.
func (e Evaluation) Confidence() int {
	got, of := 0, 0
	for _, v := range e.Verdicts {
		got, of = got+v.Points(), of+VerdictPoints
	}
	if e.Checks != nil {
		got, of = got+e.Checks.Points, of+e.Checks.Max
	}
	if of == 0 {
		return 0
	}
	return (got*100 + of/2) / of
}

// Blocking are the verdicts that block.
func (e Evaluation) Blocking() []Verdict {
	return slices.DeleteFunc(slices.Clone(e.Verdicts), func(v Verdict) bool { return v.Verdict != VerdictBlock })
}

// Summary is "confidence 78/100 (checks 58/70, evaluators 20/30)".
func (e Evaluation) Summary() string {
	ev := 0
	for _, v := range e.Verdicts {
		ev += v.Points()
	}
	parts := []string{}
	if e.Checks != nil {
		parts = append(parts, fmt.Sprintf("checks %d/%d", e.Checks.Points, e.Checks.Max))
	}
	parts = append(parts, fmt.Sprintf("evaluators %d/%d", ev, VerdictPoints*len(e.Verdicts)))
	return fmt.Sprintf("confidence %d/100 (%s)", e.Confidence(), strings.Join(parts, ", "))
}

// Text is the evaluation as a checkpoint shows it: the verdicts, what the
// role produced, the computed confidence; with details, every check.
func (e Evaluation) Text(details bool) string {
	var lines []string
	for _, v := range e.Verdicts {
		lines = append(lines, v.Line())
	}
	if e.Produced != "" {
		lines = append(lines, "", upperFirst(e.Role)+" produced "+e.Produced+".")
	}
	lines = append(lines, "Computed "+e.Summary()+".")
	if details && e.Checks != nil {
		for _, c := range e.Checks.Checks {
			lines = append(lines, fmt.Sprintf("  %s %s %d/%d: %s", c.Mark(), c.Name, c.Points, c.Max, c.Detail))
		}
	}
	if details && e.SelfReported > 0 {
		lines = append(lines, fmt.Sprintf("  (the agent's own confidence, %.2f, is recorded and never routes)", e.SelfReported))
	}
	return strings.Join(lines, "\n")
}

// evaluates says whether j's work is judged before it counts as done:
// every agent's but the interviewer's, in a run that evaluates.
func (m *Machine) evaluates(j *job) bool {
	return m.spec.Routing.Evaluate && j.Type == "" && j.Role != RoleInterviewer
}

// evaluate has j's attempt judged; EvEvaluated comes back.
func (m *Machine) evaluate(j *job) []Command {
	j.State, j.Evaluating = Checking, true
	return []Command{{Type: CmdEvaluate, Job: j.ID, Role: j.Role, Attempt: j.Attempts}}
}

// evaluated routes on a role's evaluation (seed 003 §3.2): warnings go to
// the roles after it; blocking gaps run the role once more with them; a
// second time, or a computed confidence under the floor, a human looks at
// the three verdicts first, and under the floor the rest of the run works
// one job at a time.
func (m *Machine) evaluated(ev Event) ([]Command, error) {
	j := m.byID[ev.Job]
	if j == nil || !j.Evaluating || j.State != Checking || (ev.Attempt != 0 && ev.Attempt != j.Attempts) {
		return nil, fmt.Errorf("%s while %q is not being evaluated", ev.Type, ev.Job)
	}
	if ev.Evaluation == nil {
		return nil, fmt.Errorf("%s without its evaluation", ev.Type)
	}
	e := *ev.Evaluation
	j.Evaluating, j.evaluated, j.Evaluation = false, j.Attempts, &e
	j.Spend = j.Spend.Plus(e.Spend)
	var verdicts []string
	for _, v := range e.Verdicts {
		verdicts = append(verdicts, v.Aspect+" "+firstOf(v.Verdict, "none"))
		if v.Verdict == VerdictWarn {
			for _, n := range v.Notes {
				m.warnings = append(m.warnings, fmt.Sprintf("%s (%s evaluator): %s", j.Role, v.Aspect, n))
			}
		}
	}
	out := []Command{{Type: CmdNote, Job: j.ID, Text: fmt.Sprintf("evaluated: %s; %s", e.Summary(), strings.Join(verdicts, ", "))}}
	options := []string{AnswerContinue, AnswerDetails, AnswerReject, AnswerAbort}
	withEval := func(cp *Checkpoint) { cp.Evaluation = &e }
	if blocks := e.Blocking(); len(blocks) > 0 {
		j.evalBlocks++
		if j.evalBlocks == 1 {
			why := "the evaluators found blocking gaps in your work"
			out = append(out, Command{Type: CmdNote, Job: j.ID, Text: fmt.Sprintf("routing: %d blocking verdict(s): the %s works again with them", len(blocks), j.Role)})
			return append(out, m.redoWith(j, why, &Context{Evaluation: blocks})...), nil
		}
		return append(out, m.ask(j, KindEvaluation, fmt.Sprintf("the evaluators still find blocking gaps in the %s's work", j.Role),
			e.Text(false), options, withEval)...), nil
	}
	if floor := m.spec.Routing.Floor; floor > 0 && e.Confidence() < floor {
		if !m.serial {
			m.serial = true
			out = append(out, Command{Type: CmdNote, Job: j.ID, Text: fmt.Sprintf("routing: the %s's computed confidence %d is under the floor of %d: the rest of the run works one job at a time", j.Role, e.Confidence(), floor)})
		}
		return append(out, m.ask(j, KindEvaluation, fmt.Sprintf("the %s's computed confidence is %d, under the floor of %d", j.Role, e.Confidence(), floor),
			e.Text(false), options, withEval)...), nil
	}
	return append(out, m.done(j, Done)...), nil
}

// redoWith runs j's work again with ctx: a role agent itself; the phase
// through the implementer that fixes the merged result, after which the
// phase (its plans done) counts again.
func (m *Machine) redoWith(j *job, why string, ctx *Context) []Command {
	if j.Phase {
		fixer := m.implementer()
		out := m.sendBack(j, fixer, ctx, why+": the "+fixer.Role+" fixes the merged result")
		return append(out, m.advance()...)
	}
	next := j.again(why)
	next.Evaluation, next.Feedback = ctx.Evaluation, ctx.Feedback
	j.next = next
	return m.run(j)
}

// reviewAnswer applies continue, details or reject to a checkpoint that
// shows a role's work (its step's checkpoint, or its evaluation).
func (m *Machine) reviewAnswer(j *job, cp *Checkpoint, text string) ([]Command, bool) {
	word, rest, _ := strings.Cut(text, " ")
	switch strings.ToLower(word) {
	case AnswerDetails:
		again := *cp
		m.nextCP++
		again.ID, again.View = m.nextCP, true
		if again.Evaluation != nil {
			again.Details = again.Evaluation.Text(true)
		}
		m.open = &again
		j.State = Waiting
		return []Command{{Type: CmdCheckpoint, Job: j.ID, Checkpoint: m.open}}, true
	case AnswerReject:
		feedback := strings.TrimSpace(rest)
		j.reviewed, j.evalBlocks = false, 0
		note := Command{Type: CmdNote, Job: j.ID, Text: "rejected by the human: " + oneLine(feedback)}
		return append([]Command{note}, m.redoWith(j, "the human rejected your work", &Context{Feedback: feedback})...), true
	case AnswerContinue:
		j.reviewed = true
		return m.done(j, Done), true
	}
	return nil, false
}

// checkReview says whether text answers a checkpoint that offers reject:
// reject needs the feedback the role is given.
func (cp *Checkpoint) checkReview(text string) error {
	if cp.Kind == KindReview && strings.EqualFold(text, AnswerRetry) {
		return nil // what a step checkpoint offered before reject: journals of then replay
	}
	word, rest, _ := strings.Cut(text, " ")
	if strings.EqualFold(word, AnswerReject) && strings.TrimSpace(rest) == "" {
		return fmt.Errorf("reject needs the feedback the %s works again with: reject FEEDBACK, e.g. \"reject the upload has no size limit\"", cp.Job)
	}
	if slices.Contains(cp.Options, strings.ToLower(word)) && (rest == "" || strings.EqualFold(word, AnswerReject)) {
		return nil
	}
	return fmt.Errorf("answer one of %s, not %q", strings.Join(cp.Options, ", "), text)
}

// skippable are the roles a quick objective may leave out once proven:
// those that look at the work, never one that makes it or tests it.
var skippable = []string{RoleReviewer, RoleSecurity, RoleDocumenter, RoleBrowserValidator, RoleComb}

// provenOut is adaptive routing (seed 003 §3): in a quick-class objective,
// a step whose role is proven in this project (Routing.Proven) is left
// out, unless the workflow says "required": true of it.
func (m *Machine) provenOut(s Step) bool {
	r := m.spec.Routing
	return r.Quick && s.Type == "" && (s.Required == nil || !*s.Required) && slices.Contains(skippable, s.Role) && slices.Contains(r.Proven, s.Role)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
