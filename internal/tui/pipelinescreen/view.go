package pipelinescreen

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/tui/tuikit"
	"github.com/hivectl/hive/internal/workflows"
)

// PlanState is one plan of the implementers' phase, as the pipeline view
// shows it beside the others.
type PlanState struct {
	ID    string
	State phase.PlanState
}

var jobLook = map[roleplan.JobState]struct {
	icon  string
	style lipgloss.Style
}{
	roleplan.Pending:  {"○", lipgloss.NewStyle().Faint(true)},
	roleplan.Running:  {"●", lipgloss.NewStyle().Foreground(lipgloss.Color("4")).Bold(true)},
	roleplan.Checking: {"●", lipgloss.NewStyle().Foreground(lipgloss.Color("4"))},
	roleplan.Waiting:  {"⏸", lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)},
	roleplan.Done:     {"✓", lipgloss.NewStyle().Foreground(lipgloss.Color("2"))},
	roleplan.Skipped:  {"–", lipgloss.NewStyle().Foreground(lipgloss.Color("8"))},
}

// View draws a run of hive run as seed 003 §4.4 does: the roles in
// order with their state, the implementers of the phase side by side, and
// on the edge below a role what it sent back: its challenges and fix loops.
// A waiting role's question closes the view, wrapped, with how to answer
// it. It is pure: the same snapshot draws the same lines, cut to width.
func View(s roleplan.Snapshot, plans []PlanState, width int) string {
	lines := pipelineLines(s, plans, width, false)
	if cp := s.Open; cp != nil {
		lines = append(lines, "")
		lines = append(lines, tuikit.WrapWords("  "+tuikit.StAction.Render("⏸ "+cp.Job+" asks: ")+tuikit.OneLine(cp.Question), width, 2)...)
		if cp.Evaluation != nil {
			// A rich checkpoint (seed 003 §6.4): the three verdicts, what
			// the role produced, the computed confidence; every check
			// once the human asks for details.
			for _, l := range strings.Split(cp.Evaluation.Text(cp.View), "\n") {
				if strings.TrimSpace(l) != "" {
					lines = append(lines, tuikit.WrapWords("    "+l, width, 2)...)
				}
			}
		}
		lines = append(lines, tuikit.WrapWords("    "+tuikit.StFaint.Render("answer: "+strings.Join(cp.Options, " / ")+"   (hive answer "+cp.Job+" \"...\")"), width, 2)...)
	}
	if s.Finished {
		lines = append(lines, "", tuikit.StBold.Render("  run "+s.Outcome))
	}
	return strings.Join(cut(lines, width), "\n") + "\n"
}

// pipelineLines is the view without its question: the title, the roles
// with their edges, what was left out, the decisions and the spend. Tight
// (a question needs the room) folds each row of finished roles with
// nothing on their edges into one line.
func pipelineLines(s roleplan.Snapshot, plans []PlanState, width int, tight bool) []string {
	var lines []string
	title := "─ Pipeline "
	if s.Spec.Objective != "" {
		title += "─ " + tuikit.OneLine(s.Spec.Objective) + " "
	}
	lines = append(lines, tuikit.StRule.Render(title+strings.Repeat("─", max(0, width-lipgloss.Width(title)))))
	// Jobs in workflow order; the fix implementer shows where it works.
	fixLoops := 0
	var leftOut, folded []string
	fold := func() {
		for _, l := range tuikit.JoinWrapped(folded, "  ", max(1, width-2)) {
			if l != "" {
				lines = append(lines, "  "+l)
			}
		}
		folded = nil
	}
	for _, j := range viewOrder(s.Jobs) {
		if j.State == roleplan.Skipped && j.Attempts == 0 {
			// Steps that never ran (a condition, no interview) take one
			// line together.
			leftOut = append(leftOut, j.ID)
			continue
		}
		var edges []string
		for _, c := range s.Challenges {
			if c.From == j.Role && (c.From != workflows.RoleImplementer || j.ID == roleplan.PhaseJob || j.ID == c.From) {
				edges = append(edges, tuikit.WrapWords("    "+tuikit.StAction.Render(fmt.Sprintf("⚡ challenges %s (round %d): ", c.To, c.Round))+tuikit.OneLine(c.Issue), width, 2)...)
			}
		}
		if j.Role == workflows.RoleTester && s.FixLoops > fixLoops {
			for n := fixLoops + 1; n <= s.FixLoops; n++ {
				edges = append(edges, tuikit.StAction.Render(fmt.Sprintf("    ↺ fix loop %d: failing tests back to the implementer", n)))
			}
			fixLoops = s.FixLoops
		}
		if j.Type == roleplan.StepFollow && s.Follow != nil {
			for _, r := range s.Follow.Rounds {
				edges = append(edges, tuikit.WrapWords("    "+tuikit.StAction.Render(fmt.Sprintf("↺ round %d: ", r.N))+roundText(r), width, 2)...)
			}
		}
		if tight && j.State == roleplan.Done && len(edges) == 0 {
			folded = append(folded, jobCells(j, plans)...)
			continue
		}
		fold()
		lines = append(lines, jobLine(j, plans, s.Tests, s.Follow))
		lines = append(lines, edges...)
	}
	fold()
	if len(leftOut) > 0 {
		lines = append(lines, tuikit.StFaint.Render("  – left out: "+strings.Join(leftOut, ", ")))
	}
	switch {
	case tight && len(s.Decisions) > 1:
		// The decisions are history (hive report tells each): their
		// count and the last.
		last := s.Decisions[len(s.Decisions)-1]
		lines = append(lines, tuikit.WrapWords("  "+tuikit.StFaint.Render(fmt.Sprintf("%d decisions, the last for %s: ", len(s.Decisions), last.Job))+last.Choice, width, 2)...)
	default:
		for _, d := range s.Decisions {
			lines = append(lines, tuikit.WrapWords("  "+tuikit.StFaint.Render(fmt.Sprintf("decision (%s) for %s: ", d.By, d.Job))+tuikit.OneLine(d.Question)+" → "+d.Choice, width, 2)...)
		}
	}
	if spend := spendLine(s); spend != "" {
		lines = append(lines, spend)
	}
	return lines
}

// jobCells is a job's name with its state's icon; the implementers'
// phase is each implementer with its plan's state.
func jobCells(j roleplan.Job, plans []PlanState) []string {
	if j.Phase && len(plans) > 0 {
		var cells []string
		for _, p := range plans {
			pl := tuikit.StateLook[p.State]
			cells = append(cells, pl.Style.Render(pl.Icon)+" implementer-"+p.ID)
		}
		return cells
	}
	look := jobLook[j.State]
	return []string{look.style.Render(look.icon) + " " + look.style.Render(j.ID)}
}

// jobLine is a job's line: its cells, then its attempts, cost and
// confidence, and what hive does with its work.
func jobLine(j roleplan.Job, plans []PlanState, tests *roleplan.Tests, follow *roleplan.Following) string {
	line := "  " + strings.Join(jobCells(j, plans), "  ")
	if j.Attempts > 1 {
		line += tuikit.StFaint.Render(fmt.Sprintf("  attempt %d", j.Attempts))
	}
	if j.Spend.CostUSD > 0 {
		line += tuikit.StFaint.Render(fmt.Sprintf("  $%.2f", j.Spend.CostUSD))
	}
	if e := j.Evaluation; e != nil && !j.Evaluating {
		line += tuikit.StFaint.Render(fmt.Sprintf("  confidence %d", e.Confidence()))
	}
	if j.State == roleplan.Skipped && j.Role == workflows.RoleTester && tests != nil && tests.None {
		line += tuikit.StFaint.Render("  no test to run: not verified")
	}
	if j.State == roleplan.Checking {
		what := "hive runs the tests"
		switch {
		case j.Role == workflows.RoleArchitect:
			what = "hive lints the plans"
		case j.Type == workflows.StepBuild:
			what = "hive builds the project"
		case j.Type == roleplan.StepFollow:
			what = following(follow)
		}
		if j.Evaluating {
			what = "hive and three evaluators judge its work"
		}
		line += tuikit.StFaint.Render("  " + what)
	}
	return line
}

// roundText is a round of the followed pull request: what was routed on
// which head, and the fix pushed.
func roundText(r roleplan.Round) string {
	var what []string
	if n := len(r.CI); n > 0 {
		what = append(what, fmt.Sprintf("%d failed check(s)", n))
	}
	for _, t := range r.Threads {
		what = append(what, "comment "+tuikit.OneLine(t))
	}
	text := strings.Join(what, ", ") + " on " + r.Head[:min(len(r.Head), 7)]
	if r.Pushed != "" {
		return text + " → fix pushed as " + r.Pushed[:min(len(r.Pushed), 7)]
	}
	return text + " → the implementer fixes it"
}

// following says what hive does with the run's pull request now.
func following(f *roleplan.Following) string {
	switch {
	case f == nil || f.PR == nil:
		return "hive pushes the branch and opens the pull request"
	case f.Stage == roleplan.StagePush:
		return fmt.Sprintf("hive pushes the fix to pull request #%d", f.PR.Number)
	}
	return fmt.Sprintf("waits for #%d: its checks, reviews, merge", f.PR.Number)
}

// cut cuts each line to width ("…" where it was cut); 0 leaves them whole.
func cut(lines []string, width int) []string {
	for i, l := range lines {
		if width > 0 && lipgloss.Width(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return lines
}

// spendLine is the run's spend against its budget, styled as the phase
// view's header styles it, and "cheaper models" once new roles start a
// rung down.
func spendLine(s roleplan.Snapshot) string {
	b, sp := s.Budget, s.Spent
	if sp.CostUSD == 0 && sp.Tokens() == 0 {
		return ""
	}
	text := tuikit.CeilingsSpent(b.Ceilings, sp)
	if text == "" {
		text = fmt.Sprintf("$%.2f", sp.CostUSD)
	}
	text = "  spent " + text
	if s.Rung > 0 {
		text += " · cheaper models"
	}
	return tuikit.BudgetStyled(text, b.Share(sp), 1)
}

// viewOrder is the jobs in workflow order, the fix implementer right after
// the implementers' phase it fixes.
func viewOrder(jobs []roleplan.Job) []roleplan.Job {
	var fix *roleplan.Job
	out := make([]roleplan.Job, 0, len(jobs))
	for i := range jobs {
		if jobs[i].ID == roleplan.FixJob {
			fix = &jobs[i]
			continue
		}
		out = append(out, jobs[i])
	}
	if fix == nil {
		return out
	}
	for i, j := range out {
		if j.ID == roleplan.PhaseJob {
			return append(out[:i+1], append([]roleplan.Job{*fix}, out[i+1:]...)...)
		}
	}
	return append(out, *fix)
}
