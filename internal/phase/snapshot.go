package phase

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

// PlanStatus is the engine's record of one plan, as a snapshot shows it.
type PlanStatus struct {
	Spec      PlanSpec
	State     PlanState
	Attempt   int    // the current (or last) agent attempt; 0 before the first start
	PID       int    // of the current attempt's agent, once known
	TasksDone int    // from the last PROGRESS
	Progress  string // the last PROGRESS text
	Reason    string // why it failed or was skipped
	Commits   []string
	Started   time.Time // when the current attempt started
	// Stage is where a running plan stands in worktree mode: its agent
	// works, it is being merged, a resolver works on a conflict, or the
	// post-merge gate runs.
	Stage    Stage
	Finished time.Time // when it reached a final state

	// Open is the checkpoint the plan waits at, while Waiting.
	Open *Checkpoint
	// Report is the last HIVE_REPORT of the plan's agents, if any.
	Report *work.Report
	// Resolved counts the plan's answered checkpoints (failures aside).
	Resolved int
	// Spend is what all the plan's agents used so far, its resolvers' included.
	work.Spend
	// Resolves counts the resolver agents (role comb) started on the plan's
	// merge conflicts; ResolveSpend is what they used.
	Resolves     int
	ResolveSpend work.Spend
	// Rung is the step down the model ladder its latest agent started on,
	// for the budget (0: the configured model).
	Rung int
	// Context is how full the current agent session's context is, and
	// the rollovers and compactions of the plan's sessions.
	Context ContextUse
}

// Verification is the result of a phase verification.
type Verification struct {
	Status  string `json:"status"` // VerifyPassed, VerifyHumanNeeded or VerifyGapsFound
	Details string `json:"details,omitempty"`
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
