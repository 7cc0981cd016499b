package lines

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/work"
)

// The report's heading and labels are true: a run where a plan failed is
// not headed "Execution Complete", one-shot agents are not called a team,
// and commits are the run's own.
func TestAggregateTellsHowTheRunEnded(t *testing.T) {
	ph := &plan.Phase{Number: "01", Slug: "core", Dir: ".planning/phases/01-core"}
	plans := []*phase.PlanStatus{
		{Spec: phase.PlanSpec{ID: "01-01", Wave: 1}, State: phase.Complete},
		{Spec: phase.PlanSpec{ID: "01-02", Wave: 1}, State: phase.Failed, Reason: "the post-merge gate still fails"},
		{Spec: phase.PlanSpec{ID: "01-03", Wave: 2, Done: true}, State: phase.Complete},
	}
	for _, tc := range []struct {
		snap phase.Snapshot
		want []string
		not  []string
	}{
		{
			snap: phase.Snapshot{Plans: plans, Finished: true, Outcome: phase.OutcomeFailed},
			want: []string{"## Phase 01: core Execution Finished with Issues (1 failed)", "**Plans:** 2/3 complete", "**Mode:** Standalone", "01-01**: 01-01 (complete, 4 commit(s))", "01-03**: 01-03 (complete, 0 commit(s))"},
			not:  []string{"Execution Complete", "Team"},
		},
		{
			snap: phase.Snapshot{Plans: plans[:1], Finished: true, Outcome: phase.OutcomeComplete, Team: true},
			want: []string{"Execution Complete", "**Mode:** Team"},
		},
		{
			snap: phase.Snapshot{Plans: plans[:1], Finished: true, Outcome: phase.OutcomeGaps},
			want: []string{"Executed, Verification Found Gaps", "**Spend:** 0 tokens, $0.00\n"},
			not:  []string{"Execution Complete", "**Budget:**"},
		},
		// The spend, with what the cache did; the budget, and the models
		// that ran a rung down for it.
		{
			snap: phase.Snapshot{Plans: []*phase.PlanStatus{{Spec: phase.PlanSpec{ID: "01-01", Wave: 1}, State: phase.Complete, Rung: 1}, plans[1]},
				Finished: true, Outcome: phase.OutcomeFailed, Budget: phase.Budget{Ceilings: work.Ceilings{USD: 5}, TaskUSD: []float64{1, 0.2}}, Rung: 1,
				Spent: work.Spend{InputTokens: 20_000, OutputTokens: 5_000, CacheReadTokens: 1_200_000, CacheWriteTokens: 30_000, CostUSD: 4.2}},
			want: []string{"**Spend:** 25000 tokens (cache read 1.2M, written 30.0k: 96% of the input read from the cache), $4.20\n",
				"**Budget:** $4.20 of $5.00 (84%) | **Models downgraded:** every agent started one rung down since 80% of the budget; 1 of 2 plans on a cheaper model (01-01)\n"},
		},
		// The sim's tokens are made up: the report says so.
		{
			snap: phase.Snapshot{Plans: plans[:1], Finished: true, Outcome: phase.OutcomeComplete, Agent: "sim",
				Spent: work.Spend{InputTokens: 50_000, OutputTokens: 1_147}},
			want: []string{"**Spend:** 51147 tokens, $0.00, simulated (the sim agent calls no model)\n"},
		},
		{
			snap: phase.Snapshot{Plans: plans[:1], Finished: true, Outcome: phase.OutcomeComplete, Budget: phase.Budget{Ceilings: work.Ceilings{Tokens: 2_000_000}},
				Spent: work.Spend{InputTokens: 1_000_000, CacheReadTokens: 200_000, OutputTokens: 20_000, CostUSD: 3}},
			want: []string{"**Budget:** 1.2M of 2M tokens (61%) | **Models downgraded:** no\n"},
		},
	} {
		var b strings.Builder
		Aggregate(&b, ph, tc.snap, map[string]int{"01-01": 4})
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
