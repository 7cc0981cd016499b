package roleplan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
)

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
	return fmt.Sprintf("%-13s %s %s", name, mark, words.OneLine(text))
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

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
