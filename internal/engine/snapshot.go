package engine

import (
	"time"

	"github.com/hivectl/hive/internal/work"
)

// Snapshot is a copy of the engine's state for display and status: the
// caller may keep it and read it from another goroutine.
type Snapshot struct {
	Phase         string
	Started       bool
	Finished      bool
	Outcome       string // once Finished
	Dynamic       bool
	Worktrees     bool // each plan has a worktree and is merged (the run's mode, fixed when it started)
	MaxConcurrent int
	Agent         string // the agent the run started with
	AutoAnswer    bool   // the run answers what an unattended run may (--yes)
	Team          bool   // live sessions (team mode), else one-shot agents
	CurrentWave   int    // rigid mode: the wave being run; 0 when none is open
	Resumes       int
	// Active is how long hive has run the run so far (until LastEvent),
	// without the time it was down between a stop and a resume.
	Active    time.Duration
	LastEvent time.Time
	// Down are the times hive was not running the run, oldest first.
	Down []Downtime
	// Plans are in spec order. They are shared between snapshots until they
	// change: read them, never write to them.
	Plans []*PlanStatus
	// Queue holds the open checkpoints, first in first out: Queue[0] is
	// the one to show.
	Queue []Checkpoint
	// Resolved counts the checkpoints answered so far (failures aside).
	Resolved int
	// Aborted: a human answered "abort"; the plans not yet final were skipped.
	Aborted bool
	// Verification is the phase verification's result, once known.
	Verification *Verification
	// Verify is the phase verification job: its stage and its agent.
	Verify VerifyJob
	// Budget is what the run may spend (as raised so far), Spent what every
	// agent of the run spent, and Rung the model ladder's step that agents
	// start on at least (1 once WarnShare of the budget is spent).
	Budget Budget
	Spent  work.Spend
	Rung   int
	// Pausing: a pause was asked for and agents are still stopping;
	// Paused: none runs any more (CmdPaused). PausedAt is when it was asked.
	Pausing, Paused bool
	PausedAt        time.Time
	// Context are the run's context limits, as the run started.
	Context ContextLimits
	// Limit is the run's wait for a provider's limit to pass; nil: none.
	Limit *work.LimitWait
	// Fallback: a usage limit switched the run to the fallback agent.
	Fallback bool
}

// Verification is the result of a phase verification.
type Verification struct {
	Status  string `json:"status"` // VerifyPassed, VerifyHumanNeeded or VerifyGapsFound
	Details string `json:"details,omitempty"`
}

// Snapshot returns a copy of the current state.
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{
		Phase:         e.spec.Phase,
		Started:       e.started,
		Finished:      e.finished,
		Dynamic:       e.spec.Dynamic,
		Worktrees:     e.spec.Worktrees,
		MaxConcurrent: e.spec.MaxConcurrent,
		Agent:         e.spec.Agent,
		AutoAnswer:    e.spec.AutoAnswer,
		Team:          e.spec.Team,
		CurrentWave:   e.curWave,
		Resumes:       e.resumes,
		Active:        e.active,
		LastEvent:     e.lastOwn,
		Down:          append([]Downtime(nil), e.down...),
		Budget:        e.budget.Budget,
		Spent:         e.budget.spent,
		Rung:          e.budget.ladder.Rung,
		Pausing:       e.pausing,
		Paused:        e.paused,
		PausedAt:      e.pausedAt,
		Context:       e.spec.Context,
	}
	s.Limit, s.Fallback = e.waits.Clone().Wait, e.waits.FellBack
	if len(e.published) != len(e.plans) {
		e.published = make([]*PlanStatus, len(e.plans))
	}
	for i, p := range e.plans {
		if e.published[i] == nil || p.dirty {
			e.published[i] = published(p)
			p.dirty = false
		}
	}
	s.Plans = append([]*PlanStatus(nil), e.published...)
	for _, cp := range e.queue {
		s.Queue = append(s.Queue, *cp)
	}
	s.Resolved = e.resolved
	s.Aborted = e.aborted
	s.Verify = e.vj
	s.Verify.seen = nil // the engine's bookkeeping, not the caller's
	if e.verification != nil {
		v := *e.verification
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
func published(p *PlanStatus) *PlanStatus {
	// Only the exported fields: the rest is the engine's bookkeeping. Commits
	// is replaced, never changed in place, so it can be shared.
	c := &PlanStatus{
		Spec: p.Spec, State: p.State, Attempt: p.Attempt, PID: p.PID,
		TasksDone: p.TasksDone, Progress: p.Progress, Reason: p.Reason, Commits: p.Commits,
		Started: p.Started, Finished: p.Finished, Stage: p.Stage, Resolved: p.Resolved,
		Spend: p.Spend, Resolves: p.Resolves, ResolveSpend: p.ResolveSpend, Rung: p.Rung, Report: p.Report,
		Context: p.Context,
		index:   -1,
	}
	if p.Open != nil {
		cp := *p.Open
		c.Open = &cp
	}
	return c
}

// markDirty notes the plans an event may have changed: its own plan and
// every plan a command names (a plan never changes state without one);
// all of them after run-started and resumed.
func (e *Engine) markDirty(ev Event, cmds []Command) {
	if ev.Type == EvRunStarted || ev.Type == EvResumed {
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

// Count returns how many plans are in state st.
func (s Snapshot) Count(st PlanState) int {
	n := 0
	for _, p := range s.Plans {
		if p.State == st {
			n++
		}
	}
	return n
}

func outcome(plans []*PlanStatus, v *Verification) string {
	for _, p := range plans {
		if p.State != Complete {
			return OutcomeFailed
		}
	}
	if v != nil && v.Status == VerifyGapsFound {
		return OutcomeGaps
	}
	return OutcomeComplete
}

// Downtime is a time when no hive process ran the run: from its last event
// before a stop to the resume.
type Downtime struct {
	From, To time.Time
}

// Working is how much of [from, to) hive was running the run: the span less
// the downtimes in it. A plan's clock uses it, so that the hours hive was
// stopped do not count as the plan's time.
func (s Snapshot) Working(from, to time.Time) time.Duration {
	d := to.Sub(from)
	for _, dt := range s.Down {
		lo, hi := maxTime(from, dt.From), minTime(to, dt.To)
		if hi.After(lo) {
			d -= hi.Sub(lo)
		}
	}
	return max(d, 0)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
