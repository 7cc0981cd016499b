package phase

import "github.com/hivectl/hive/internal/work"

// JobKind is what a job does.
type JobKind string

// Job kinds. The pipeline's roles join them as they land.
const (
	JobPlan    JobKind = "plan"    // an executor works through a plan
	JobResolve JobKind = "resolve" // a resolver agent (role comb) resolves a plan's merge conflict
	JobVerify  JobKind = "verify"  // the phase verification, with its verifier agent
)

// Job is one unit of agent work as status and scripts see it: a plan's
// executors, the resolvers of its merge conflicts, the phase verifier.
type Job struct {
	ID       string  `json:"id"` // the plan's id, PLAN/resolve, or verify
	Kind     JobKind `json:"kind"`
	Plan     string  `json:"plan,omitempty"`
	State    string  `json:"state"` // pending, running, waiting, complete, failed or skipped
	Stage    string  `json:"stage,omitempty"`
	Attempts int     `json:"attempts"` // agents started so far
	PID      int     `json:"pid,omitempty"`
	work.Spend
}

// Jobs lists the run's jobs: each plan, then each plan's resolver once one
// was started, then the verification once asked for.
func (s Snapshot) Jobs() []Job {
	var out, resolves []Job
	for _, p := range s.Plans {
		plan := Job{ID: p.Spec.ID, Kind: JobPlan, Plan: p.Spec.ID, State: string(p.State), Stage: string(p.Stage),
			Attempts: p.Attempt - p.Resolves, Spend: p.Spend.Minus(p.ResolveSpend)}
		if !p.State.Final() && p.Stage != StageResolve {
			plan.PID = p.PID
		}
		out = append(out, plan)
		if p.Resolves == 0 {
			continue
		}
		r := Job{ID: p.Spec.ID + "/resolve", Kind: JobResolve, Plan: p.Spec.ID, Attempts: p.Resolves, Spend: p.ResolveSpend}
		switch {
		case p.Stage == StageResolve:
			r.State, r.PID = string(Running), p.PID
		case p.Stage == StageHeld:
			r.State = string(Pending)
		case p.Open != nil && p.Open.Kind == KindMerge, p.State == Failed, p.State == Skipped:
			r.State = string(Failed)
		default:
			r.State = string(Complete)
		}
		resolves = append(resolves, r)
	}
	out = append(out, resolves...)
	if v := s.Verify; v.Stage != VerifyNotAsked {
		j := Job{ID: VerifyID, Kind: JobVerify, Stage: string(v.Stage), Attempts: v.Attempt, Spend: v.Spend}
		switch v.Stage {
		case VerifyHeld:
			j.State = string(Pending)
		case VerifyWaiting:
			j.State = string(Waiting)
		case VerifyDone:
			j.State = string(Complete)
		default:
			j.State = string(Running)
		}
		if v.Stage == VerifyAgent {
			j.PID = v.PID
		}
		out = append(out, j)
	}
	return out
}
