package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
	"github.com/hivectl/hive/internal/work"
)

// BudgetText is the run's budget as it stands, on one line: BudgetSpent,
// and the step down the model ladder the run took at 80 %. "" for a run
// without a budget.
func BudgetText(s phase.Snapshot) string {
	text := BudgetSpent(s)
	if text != "" && s.Rung > 0 {
		text += fmt.Sprintf(", models %s down since %.0f%%", rungs(s.Rung), 100*work.WarnShare)
	}
	return text
}

// BudgetSpent is what was spent of each ceiling of the run's budget
// ("$3.41 of $5.00 (68%)", "1.2M of 2M tokens (60%)", every token
// counted as the budget counts them) and each plan's ceiling. "" for a
// run without a budget.
func BudgetSpent(s phase.Snapshot) string {
	text := tuikit.CeilingsSpent(s.Budget.Ceilings, s.Spent)
	if b := s.Budget; b.PlanUSD > 0 {
		text = strings.TrimPrefix(text+fmt.Sprintf(", $%.2f a plan", b.PlanUSD), ", ")
	}
	return text
}

// rungs says a number of steps down the model ladder.
func rungs(n int) string {
	if n == 1 {
		return "one rung"
	}
	return fmt.Sprintf("%d rungs", n)
}

// Downgrades says which models ran cheaper than configured for the budget:
// the run's step down at 80 %, and the plans whose latest agent started
// down the ladder (to fit what was left, or after 80 %). "" when none did.
func Downgrades(s phase.Snapshot) string {
	var down []string
	for _, p := range s.Plans {
		if p.Rung > 0 {
			id := p.Spec.ID
			if p.Rung > 1 {
				id += fmt.Sprintf(" (%d rungs)", p.Rung)
			}
			down = append(down, id)
		}
	}
	var parts []string
	if s.Rung > 0 {
		parts = append(parts, fmt.Sprintf("every agent started %s down since %.0f%% of the budget", rungs(s.Rung), 100*work.WarnShare))
	}
	if len(down) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d plans on a cheaper model (%s)", len(down), len(s.Plans), strings.Join(down, ", ")))
	}
	return strings.Join(parts, "; ")
}

// BudgetOpen is the budget checkpoint, while the run waits at it.
func BudgetOpen(s phase.Snapshot) *phase.Checkpoint {
	for i, cp := range s.Queue {
		if cp.Kind == phase.KindBudget {
			return &s.Queue[i]
		}
	}
	return nil
}

// LimitText says what a run waits for, as of now: "waiting for the usage
// limit's reset at 14:00 (in 2h13m)".
func LimitText(w *work.LimitWait, now time.Time) string {
	what := w.Kind.Awaited()
	in := w.Until.Sub(now).Round(time.Minute)
	if w.Until.Sub(now) < time.Minute {
		in = w.Until.Sub(now).Round(time.Second)
	}
	text := fmt.Sprintf("waiting for %s at %s (in %s)", what, w.Until.Local().Format("15:04"), strings.TrimSuffix(strings.TrimSuffix(in.String(), "0s"), "0m"))
	if w.Guessed {
		text = fmt.Sprintf("waiting for %s (not said when: trying again at %s)", what, w.Until.Local().Format("15:04"))
	}
	if !w.Until.After(now) {
		text = fmt.Sprintf("waited for %s: going on", what)
	}
	return text
}
