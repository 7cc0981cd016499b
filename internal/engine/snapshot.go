package engine

import "github.com/hivectl/hive/internal/phase"

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
		Pausing:       e.pausing,
		Paused:        e.paused,
		PausedAt:      e.pausedAt,
		Context:       e.spec.Context,
	}
	s.Limit, s.Fallback = e.waits.Clone().Wait, e.waits.FellBack
	if len(e.published) != len(e.plans) {
		e.published = make([]*phase.PlanStatus, len(e.plans))
	}
	for i, p := range e.plans {
		if e.published[i] == nil || p.dirty {
			e.published[i] = published(p)
			p.dirty = false
		}
	}
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

// published is the read-only copy of p that snapshots share until p
// changes: copying every plan for every snapshot made a 1,000-plan run
// spend most of its time in the garbage collector.
func published(p *plan) *phase.PlanStatus {
	// Only what a snapshot shows: the rest is the engine's bookkeeping.
	// Commits is replaced, never changed in place, so it can be shared.
	c := new(phase.PlanStatus)
	*c = p.PlanStatus
	if p.Open != nil {
		cp := *p.Open
		c.Open = &cp
	}
	return c
}

// markDirty notes the plans an event may have changed: its own plan and
// every plan a command names (a plan never changes state without one);
// all of them after run-started and resumed.
func (e *Engine) markDirty(ev phase.Event, cmds []phase.Command) {
	if ev.Type == phase.EvRunStarted || ev.Type == phase.EvResumed {
		for _, p := range e.plans {
			p.dirty = true
		}
		return
	}
	if p := e.byID[ev.Plan]; p != nil {
		p.dirty = true
	}
	for _, c := range cmds {
		if p := e.byID[c.Plan]; p != nil {
			p.dirty = true
		}
	}
}

func outcome(plans []*plan, v *phase.Verification) string {
	for _, p := range plans {
		if p.State != phase.Complete {
			return phase.OutcomeFailed
		}
	}
	if v != nil && v.Status == phase.VerifyGapsFound {
		return phase.OutcomeGaps
	}
	return phase.OutcomeComplete
}
