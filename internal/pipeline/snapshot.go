package pipeline

import (
	"slices"

	"github.com/hivectl/hive/internal/roleplan"
)

// Snapshot returns the state; nothing in it aliases the machine's.
func (m *Machine) Snapshot() roleplan.Snapshot {
	s := roleplan.Snapshot{Spec: m.spec, Started: m.started, Finished: m.finished, Outcome: m.outcome, Reason: m.reason,
		Agenda: slices.Clone(m.jobs.Agenda), Challenges: slices.Clone(m.challenges), Decisions: slices.Clone(m.decisions),
		FixLoops: m.fixLoops, Plans: slices.Clone(m.plans),
		Budget: m.budget.Clone(), Spent: m.jobs.Spent(), Rung: m.budget.Ladder.Rung, Findings: slices.Clone(m.findings.List), Limit: m.limitWait(),
		Fallback: m.waits.FellBack, Follow: m.follow.Snapshot()}
	for _, j := range m.jobs.List {
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
	if m.finished {
		h := roleplan.HandoverOf(s, m.publish, m.noMerge)
		s.Handover = &h
	}
	return s
}

// Finished reports whether the run has ended.
func (m *Machine) Finished() bool { return m.finished }

// Started reports whether the run's EvStarted was stepped.
func (m *Machine) Started() bool { return m.started }
