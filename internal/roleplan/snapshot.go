package roleplan

import "github.com/hivectl/hive/internal/work"

// JobState is where a role's job stands.
type JobState string

const (
	Pending  JobState = "pending"
	Running  JobState = "running"  // its agent (or the phase) works
	Checking JobState = "checking" // hive lints its plans, runs the tests or the build
	Waiting  JobState = "waiting"  // at a checkpoint
	Done     JobState = "done"
	Skipped  JobState = "skipped" // the run went on without it: left out, the human's choice, or nothing to check
)

// PhaseJob is the id of the job that runs the architect's plans; FixJob
// the implementer agent that, after such a phase, fixes what the tests or
// a challenge found in the merged result.
const (
	PhaseJob = "implementers"
	FixJob   = "implementer-fix"
)

// Job is one role's work in a run.
type Job struct {
	ID       string     `json:"id"`
	Role     string     `json:"role"`
	Prompt   string     `json:"prompt,omitempty"`
	Type     string     `json:"type,omitempty"`  // a mechanical step's type (StepBuild, StepFixBlocking)
	Phase    bool       `json:"phase,omitempty"` // the architect's plans, run as a phase
	State    JobState   `json:"state"`
	Attempts int        `json:"attempts"`
	PID      int        `json:"pid,omitempty"`
	Spend    work.Spend `json:"spend,omitzero"`
	// Report is the last HIVE_REPORT of its agents.
	Report *work.Report `json:"report,omitempty"`
	// Evaluation is its last attempt judged (Spec.Routing.Evaluate);
	// Evaluating: hive judges the current one now.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
	Evaluating bool        `json:"evaluating,omitempty"`
}

// LimitJob is the job `hive answer` names to end a wait for the provider at
// once: `hive answer limit resume-now`.
const LimitJob = "limit"

// Snapshot is a copy of the machine's state, for display, the run's report
// and tests.
type Snapshot struct {
	Spec       Spec        `json:"spec"`
	Started    bool        `json:"started"`
	Finished   bool        `json:"finished"`
	Outcome    string      `json:"outcome,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	Jobs       []Job       `json:"jobs"`
	Agenda     []string    `json:"agenda,omitempty"` // the jobs still to run, in order
	Open       *Checkpoint `json:"open,omitempty"`
	Challenges []Challenge `json:"challenges,omitempty"`
	Decisions  []Decision  `json:"decisions,omitempty"`
	FixLoops   int         `json:"fix_loops,omitempty"`
	Tests      *Tests      `json:"tests,omitempty"` // the last test run
	Plans      []PlanRun   `json:"plans,omitempty"` // the phase's plans, as its last run ended
	// Budget is the budget as raised so far; Spent what every job used;
	// Rung the step down the ladders new sessions start on.
	Budget Budget     `json:"budget,omitzero"`
	Spent  work.Spend `json:"spent,omitzero"`
	Rung   int        `json:"rung,omitempty"`
	// Findings are the reviewing roles' findings, with what became of
	// them.
	Findings []Finding `json:"findings,omitempty"`
	// Limit is the run's wait for its provider's limit to pass; nil: none.
	Limit *work.LimitWait `json:"limit,omitempty"`
	// Fallback: a usage limit switched the run to the fallback agent.
	Fallback bool `json:"fallback,omitempty"`
	// Follow is the run's pull request as it is followed (Spec.Follow).
	Follow *Following `json:"follow,omitempty"`
	// Handover is how the ended run's work reaches the user; nil until
	// it has ended.
	Handover *Handover `json:"handover,omitempty"`
}

// Active counts the jobs at work: role sessions, the phase, hive's checks.
func (s Snapshot) Active() int {
	n := 0
	for _, j := range s.Jobs {
		if j.State == Running || j.State == Checking {
			n++
		}
	}
	return n
}
