package cli

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/plan"
)

// The report's heading and labels are true: a run where a plan failed is
// not headed "Execution Complete", one-shot agents are not called a team,
// and commits are the run's own.
func TestAggregateTellsHowTheRunEnded(t *testing.T) {
	ph := &plan.Phase{Number: "01", Slug: "core", Dir: ".planning/phases/01-core"}
	plans := []*engine.PlanStatus{
		{Spec: engine.PlanSpec{ID: "01-01", Wave: 1}, State: engine.Complete},
		{Spec: engine.PlanSpec{ID: "01-02", Wave: 1}, State: engine.Failed, Reason: "the post-merge gate still fails"},
		{Spec: engine.PlanSpec{ID: "01-03", Wave: 2, Done: true}, State: engine.Complete},
	}
	for _, tc := range []struct {
		snap engine.Snapshot
		want []string
		not  []string
	}{
		{
			snap: engine.Snapshot{Plans: plans, Finished: true, Outcome: engine.OutcomeFailed},
			want: []string{"## Phase 01: core Execution Finished with Issues (1 failed)", "**Plans:** 2/3 complete", "**Mode:** Standalone", "01-01**: 01-01 (complete, 4 commit(s))", "01-03**: 01-03 (complete, 0 commit(s))"},
			not:  []string{"Execution Complete", "Team"},
		},
		{
			snap: engine.Snapshot{Plans: plans[:1], Finished: true, Outcome: engine.OutcomeComplete, Team: true},
			want: []string{"Execution Complete", "**Mode:** Team"},
		},
		{
			snap: engine.Snapshot{Plans: plans[:1], Finished: true, Outcome: engine.OutcomeGaps},
			want: []string{"Executed, Verification Found Gaps"},
			not:  []string{"Execution Complete"},
		},
	} {
		var b strings.Builder
		writeAggregate(&b, ph, tc.snap, map[string]int{"01-01": 4})
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("report lacks %q:\n%s", w, b.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("report says %q:\n%s", n, b.String())
			}
		}
	}
}
