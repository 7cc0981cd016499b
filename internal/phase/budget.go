package phase

import (
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/work"
)

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

// BudgetCheckpoint is the run's open budget checkpoint, if it has one.
func (s Snapshot) BudgetCheckpoint() *Checkpoint {
	for i := range s.Queue {
		if s.Queue[i].Plan == BudgetID {
			return &s.Queue[i]
		}
	}
	return nil
}

// Raise is the answer to the budget checkpoint a run waits at (snap) that
// lets it spend what it has spent plus allot: how hive run goes on with
// the phase of its implementers once its human raised the run's budget.
// ok is false when the run waits at no budget checkpoint or allot is
// nothing.
func Raise(snap Snapshot, allot Budget, now time.Time) (ev Event, ok bool) {
	cp := snap.BudgetCheckpoint()
	if cp == nil {
		return Event{}, false
	}
	var text string
	switch {
	case allot.USD <= 0 && allot.Tokens <= 0:
		return Event{}, false
	case snap.Budget.USD <= 0:
		text = fmt.Sprintf("raise %d", snap.Spent.Tokens()+allot.Tokens)
	default:
		text = fmt.Sprintf("raise %.4f", snap.Spent.CostUSD+allot.USD)
	}
	return Event{Type: EvAnswer, Time: now.UTC(), Plan: BudgetID, CheckpointID: cp.ID, Text: text, By: "hive run"}, true
}
