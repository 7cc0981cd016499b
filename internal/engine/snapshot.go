package engine

import (
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// Snapshot returns a copy of the current state.
func (e *Engine) Snapshot() phase.Snapshot {
	s := phase.Snapshot{
		Phase:         e.spec.Phase,
		Started:       e.started,
		Finished:      e.finished,
		Dynamic:       e.spec.Dynamic,
		Worktrees:     e.spec.Worktrees,
		MaxConcurrent: e.spec.MaxConcurrent,
		Agent:         e.spec.Agent,
		AutoAnswer:    e.spec.AutoAnswer,
		Team:          e.spec.Team,
		CurrentWave:   e.graph.CurrentWave(),
		Resumes:       e.resumes,
		Active:        e.active.Active(),
		LastEvent:     e.active.LastEvent(),
		Down:          e.active.Down(),
		Budget:        e.budget.Budget,
		Spent:         e.budget.Spent(),
		Rung:          e.budget.Rung(),
		Context:       e.spec.Context,
	}
	s.Limit, s.Fallback = e.waits.Clone().Wait, e.waits.FellBack
	e.pause.Show(&s)
	e.published = plans.Publish(e.plans, e.published)
	s.Plans = append([]*phase.PlanStatus(nil), e.published...)
	s.Queue, s.Resolved = e.queue.Open(), e.queue.Resolved()
	s.Aborted = e.aborted
	s.Verify = e.vj.VerifyJob // without the engine's bookkeeping
	if r := e.vj.Result(); r != nil {
		v := *r
		s.Verification = &v
	}
	if e.finished {
		s.Outcome = e.outcome()
	}
	return s
}
