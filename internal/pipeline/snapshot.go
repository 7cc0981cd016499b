package pipeline

import (
	"slices"

	"github.com/hivectl/hive/internal/work"
)

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

// Snapshot returns the state; nothing in it aliases the machine's.
func (m *Machine) Snapshot() Snapshot {
	s := Snapshot{Spec: m.spec, Started: m.started, Finished: m.finished, Outcome: m.outcome, Reason: m.reason,
		Agenda: slices.Clone(m.agenda), Challenges: slices.Clone(m.challenges), Decisions: slices.Clone(m.decisions),
		FixLoops: m.fixLoops, Plans: slices.Clone(m.plans),
		Budget: m.budget.clone(), Spent: m.spent(), Rung: m.budget.ladder.Rung, Findings: slices.Clone(m.findings), Limit: m.limitWait(),
		Fallback: m.waits.FellBack, Follow: m.followSnapshot()}
	for _, j := range m.jobs {
		s.Jobs = append(s.Jobs, j.Job)
	}
	if m.open != nil {
		cp := *m.open
		s.Open = &cp
	}
	if m.tests != nil {
		t := *m.tests
		s.Tests = &t
	}
	return s
}

// Finished reports whether the run has ended.
func (m *Machine) Finished() bool { return m.finished }

// Started reports whether the run's EvStarted was stepped.
func (m *Machine) Started() bool { return m.started }
