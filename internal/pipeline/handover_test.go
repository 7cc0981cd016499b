package pipeline

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// How an ended run's work is handed over is the machine's decision, from
// its spec, its end and what the process that resumed it last was told;
// a later resume's flags win, and one without them goes back to the
// spec's.
func TestHandover(t *testing.T) {
	review := workflows.Workflow{Name: "review", Steps: []workflows.Step{{Role: workflows.RoleReviewer}}}
	for _, tc := range []struct {
		name    string
		spec    roleplan.Spec
		resume  *roleplan.Event // before the end
		abort   bool
		how     string
		publish string
	}{
		{name: "merge", how: roleplan.HandoverMerge},
		{name: "no-merge", spec: roleplan.Spec{NoMerge: true}, how: roleplan.HandoverLeave},
		{name: "pr", spec: roleplan.Spec{Publish: "pr"}, how: roleplan.HandoverPR, publish: "pr"},
		{name: "push", spec: roleplan.Spec{Publish: "push"}, how: roleplan.HandoverPush, publish: "push"},
		{name: "resumed with --pr", resume: &roleplan.Event{Type: roleplan.EvResumed, Publish: "pr"}, how: roleplan.HandoverPR, publish: "pr"},
		{name: "resumed with --no-merge", resume: &roleplan.Event{Type: roleplan.EvResumed, NoMerge: true}, how: roleplan.HandoverLeave},
		{name: "resumed without flags", spec: roleplan.Spec{Publish: "push"}, resume: &roleplan.Event{Type: roleplan.EvResumed}, how: roleplan.HandoverPush, publish: "push"},
		{name: "unfinished", spec: roleplan.Spec{Publish: "pr"}, abort: true, how: roleplan.HandoverUnfinished, publish: "pr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			spec := tc.spec
			spec.Objective, spec.Workflow, spec.Rules = "review it", review, roleplan.Rules
			step := func(ev roleplan.Event) {
				t.Helper()
				now = now.Add(time.Second)
				ev.Time = now
				if _, err := m.Step(ev); err != nil {
					t.Fatalf("%s: %v", ev.Type, err)
				}
			}
			step(roleplan.Event{Type: roleplan.EvStarted, Spec: &spec})
			if tc.resume != nil {
				step(*tc.resume)
			}
			if m.Snapshot().Handover != nil {
				t.Fatal("a handover before the run ended")
			}
			step(roleplan.Event{Type: roleplan.EvAgentStarted, Job: "reviewer", Attempt: 1})
			status := work.ReportComplete
			if tc.abort {
				status = work.ReportBlocked
			}
			step(roleplan.Event{Type: roleplan.EvReport, Job: "reviewer", Attempt: 1, Report: &work.Report{Status: status, Summary: "looked", Blocker: "no access", Extra: map[string]json.RawMessage{"approval_status": json.RawMessage(`"approved"`)}}})
			step(roleplan.Event{Type: roleplan.EvAgentExited, Job: "reviewer", Attempt: 1})
			if tc.abort {
				open := m.Snapshot().Open
				if open == nil {
					t.Fatalf("nothing asked after a blocked report: %+v", m.Snapshot())
				}
				step(roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: open.ID, Text: roleplan.AnswerAbort})
			}
			s := m.Snapshot()
			if !s.Finished || s.Handover == nil || s.Handover.How != tc.how || s.Handover.Publish != tc.publish {
				t.Fatalf("finished %v (%s), handover %+v; want %s (publish %q)", s.Finished, s.Outcome, s.Handover, tc.how, tc.publish)
			}
		})
	}
}
