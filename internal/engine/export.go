package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/active"
	"github.com/hivectl/hive/internal/engine/attend"
	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/limits"
	"github.com/hivectl/hive/internal/engine/pause"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/engine/verify"
	"github.com/hivectl/hive/internal/phase"
)

// Export returns the engine's state as plain data; the engine is unchanged.
func (e *Engine) Export() phase.State {
	s := phase.State{Version: phase.Version, Spec: e.spec, Finished: e.finished, Resumes: e.resumes, Now: e.now,
		Aborted: e.aborted,
		Human:   e.human.Record(), Merges: e.branch.Merges,
		Pause: e.pause.Record(), Waits: e.waits.Clone()}
	s.Rules = e.rules
	e.active.Record(&s)
	s.Budget = e.budget.Record()
	s.Verify, s.Verification, s.VerifyOpen = e.vj.Record()
	s.Begun = e.graph.Begun()
	e.queue.Record(&s)
	for _, p := range e.plans {
		s.Plans = append(s.Plans, p.Record())
	}
	return s
}

// Restore returns an engine in state s, which then behaves as the engine
// that exported it on any further events. A state of a newer engine is
// refused, as its journal would be.
func Restore(s phase.State) (*Engine, error) {
	if s.Version > phase.Version {
		return nil, &phase.NewerError{Version: s.Version}
	}
	e := New()
	if len(s.Plans) == 0 && len(s.Spec.Plans) == 0 {
		return e, nil // exported before the run started
	}
	if err := e.init(s.Spec); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if len(s.Plans) != len(e.plans) {
		return nil, fmt.Errorf("restore: %d plan records for %d plans", len(s.Plans), len(e.plans))
	}
	e.finished, e.resumes, e.now = s.Finished, s.Resumes, s.Now
	e.aborted = s.Aborted
	e.active, e.human = active.Restore(s), attend.Restore(s.Human)
	e.branch = integrate.Branch{Merges: s.Merges}
	e.pause, e.waits = pause.Restore(s.Pause), limits.Wait{Waits: s.Waits.Clone()}
	e.vj = verify.Restore(s.Verify, s.Verification, s.VerifyOpen)
	e.graph.SetBegun(s.Begun)
	b := s.Budget
	e.budget = budget.Restore(b)
	e.rules = s.Rules
	if e.rules == 0 {
		e.rules = max(1, s.Version) // exported by an engine that followed its own rules
	}
	open := map[int]*phase.Checkpoint{}
	if cp := e.vj.Open(); cp != nil {
		open[cp.ID] = cp
	}
	if b.Open != nil {
		open[b.Open.ID] = b.Open
	}
	for i, r := range s.Plans {
		p := e.plans[i]
		if err := p.Restore(i, r); err != nil {
			return nil, err
		}
		if p.Open != nil {
			open[p.Open.ID] = p.Open
		}
	}
	var err error
	if e.queue, err = checkpoints.Restore(s, open); err != nil {
		return nil, err
	}
	e.rebuild()
	return e, nil
}

// rebuild derives, after a restore, what the engine keeps alongside the
// plans' states: the running count, and the graph's unmet dependencies,
// ready queues and each wave's open plans.
func (e *Engine) rebuild() {
	e.running = plans.Slots(e.plans)
	for _, p := range e.plans {
		p.Dirty = true
	}
	e.graph.Reset(e.state)
}
