package phase

import "github.com/hivectl/hive/internal/work"

// Budget is what a run may spend (seed 003 §5), fixed when the run starts
// and raised only by a human's answer to the budget checkpoint. The engine
// enforces it from the usage of every turn, which the shell prices.
type Budget struct {
	// Ceilings are the run's: every agent's turns count.
	work.Ceilings
	// PlanUSD is each plan's ceiling in dollars; 0: none. A plan that
	// reaches it is stopped and fails, for the human to retry or skip.
	PlanUSD float64 `json:"plan_usd,omitempty"`
	// TaskUSD estimates one task on each rung of the executor's model
	// ladder, most capable first (the shell prices the project's history or
	// a size heuristic). Rung r of a start command names the model; with
	// fewer than two rungs nothing can be downgraded.
	TaskUSD []float64 `json:"task_usd,omitempty"`
}

// BudgetID is the plan id that `hive answer` uses for the budget checkpoint.
const BudgetID = "budget"

// KindBudget is the kind of the checkpoint of a run that reached its budget.
const KindBudget = "budget"
