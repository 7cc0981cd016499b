package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/active"
	"github.com/hivectl/hive/internal/engine/attend"
	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/rollover"
	"github.com/hivectl/hive/internal/engine/verify"
	"github.com/hivectl/hive/internal/phase"
)

// Export returns the engine's state as plain data; the engine is unchanged.
func (e *Engine) Export() phase.State {
	s := phase.State{Version: phase.Version, Spec: e.spec, Finished: e.finished, Resumes: e.resumes, Now: e.now,
		Aborted: e.aborted,
		Human:   e.human.Record(), Merges: e.branch.Merges,
		Pause: phase.PauseRecord{Pausing: e.pausing, Paused: e.paused, At: e.pausedAt}, Waits: e.waits.Clone()}
	s.Rules = e.rules
	e.active.Record(&s)
	s.Budget = e.budget.Record()
	s.Verify, s.Verification, s.VerifyOpen = e.vj.Record()
	s.Begun = e.graph.Begun()
	e.queue.Record(&s)
	for _, p := range e.plans {
		r := phase.PlanRecord{ID: p.Spec.ID, State: p.State, Attempt: p.Attempt, PID: p.PID, TasksDone: p.TasksDone, Progress: p.Progress,
			Reason: p.Reason, Commits: p.Commits, Started: p.Started, Stage: p.Stage, Finished: p.Finished, Report: p.Report,
			Resolved: p.Resolved, Spend: p.Spend, Resolves: p.Resolves, ResolveSpend: p.ResolveSpend, Seen: p.seen, ResolveSeen: p.resolveSeen,
			Check: p.check, Answered: p.answered, Continuation: p.continuation,
			AutoRetries: p.autoRetries, HumanRetried: p.humanRetried, PastCeiling: p.pastCeiling, Silence: p.silence, LastActive: p.lastActive,
			AgentLive: p.agentLive, ExitNote: p.exitNote, Rung: p.Rung, Guard: p.guard.Clone(),
			Context: p.Context, RollBy: p.roll.By, RollAtAnswer: p.roll.AtAnswer, Notes: p.notes, AnswerAtTurnEnd: p.answerAtTurnEnd}
		if p.Open != nil {
			r.Open = p.Open.Copy()
		}
		if p.lastAnswered != nil {
			r.LastAnswered = p.lastAnswered.Copy()
		}
		for _, cp := range p.permissions {
			r.Permissions = append(r.Permissions, *cp.Copy())
		}
		p.integ.Record(&r)
		s.Plans = append(s.Plans, r)
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
	e.pausing, e.paused, e.pausedAt = s.Pause.Pausing, s.Pause.Paused, s.Pause.At
	e.waits = s.Waits.Clone()
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
		if r.ID != p.Spec.ID {
			return nil, fmt.Errorf("restore: plan record %d is %s, the spec's plan is %s", i, r.ID, p.Spec.ID)
		}
		p.State, p.Attempt, p.PID, p.TasksDone, p.Progress, p.Reason = r.State, r.Attempt, r.PID, r.TasksDone, r.Progress, r.Reason
		p.Commits, p.Started, p.Stage, p.Finished, p.Open, p.Report = r.Commits, r.Started, r.Stage, r.Finished, r.Open, r.Report
		p.Resolved, p.Spend, p.Resolves, p.ResolveSpend, p.seen, p.resolveSeen = r.Resolved, r.Spend, r.Resolves, r.ResolveSpend, r.Seen, r.ResolveSeen
		p.check, p.lastAnswered, p.answered, p.continuation = r.Check, r.LastAnswered, r.Answered, r.Continuation
		p.autoRetries, p.humanRetried, p.pastCeiling, p.silence, p.lastActive = r.AutoRetries, r.HumanRetried, r.PastCeiling, r.Silence, r.LastActive
		p.agentLive, p.exitNote, p.Rung, p.guard, p.integ = r.AgentLive, r.ExitNote, r.Rung, r.Guard.Clone(), integrate.Restore(r)
		p.Context, p.roll, p.notes = r.Context, rollover.Session{By: r.RollBy, AtAnswer: r.RollAtAnswer}, r.Notes
		p.answerAtTurnEnd = r.AnswerAtTurnEnd
		p.permissions = nil
		for _, cp := range r.Permissions {
			p.permissions = append(p.permissions, cp.Copy())
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
	e.running = 0
	for _, p := range e.plans {
		p.dirty = true
		if p.State == phase.Running || p.State == phase.Waiting {
			e.running++
		}
	}
	e.graph.Reset(e.state)
}
