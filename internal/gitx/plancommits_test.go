package gitx

import (
	"context"
	"slices"
	"testing"
)

// TestForPlanAgreesWithGitGrep: counting every plan's commits from one log
// (RangeCommits and ForPlan, or a PlanIndex of it) finds exactly what
// PlanCommits' git grep finds for each plan, on messages made to confuse
// one or the other.
func TestForPlanAgreesWithGitGrep(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	base, err := r.Git(ctx, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	messages := []string{
		"feat(01-01): the scope",
		"fix(101-01): a longer id",
		"chore: released 2025-01-01",
		"docs: scope in the body\n\nsee (01-02) for why",
		"feat: a trailer\n\nHive-Task: 01-02/3",
		"feat: a plan trailer\n\nHive-Plan: 01-03",
		"feat: a task trailer with letters\n\nHive-Task: 01-03/2b",
		"feat: not a trailer\n\nsee Hive-Plan: 01-01 above",
		"feat: a longer trailer id\n\nHive-Plan: 01-011",
		"feat: a trailer then text\n\nHive-Task: 01-01/3 done",
		"feat: an upper-case task\n\nHive-Task: 01-01/A",
		"feat: an empty task\n\nHive-Task: 01-02/",
		"feat(01-04)!: breaking",
		"Hive-Plan: 01-02",
		"fix: nested (see (01-03)) and twice (01-03) (01-03)",
		"feat(01-01)(01-02): two scopes\n\nHive-Task: 01-02/4\nHive-Plan: 01-02",
		"feat: a slash id\n\nHive-Task: 01-05/x/7",
	}
	for _, m := range messages {
		if _, err := r.Git(ctx, "commit", "-q", "--allow-empty", "-m", m); err != nil {
			t.Fatal(err)
		}
	}
	all, err := r.RangeCommits(ctx, base[:40], "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(messages) {
		t.Fatalf("RangeCommits found %d commits, want %d", len(all), len(messages))
	}
	ix := IndexPlans(all)
	for _, id := range []string{"01-01", "01-02", "01-03", "01-04", "101-01", "01-011", "2025-01", "01-05/x", "see (01-03", "01-03)"} {
		grep, err := r.PlanCommits(ctx, id, base[:40], "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, c := range grep {
			want = append(want, c.Subject)
		}
		for _, c := range all {
			if c.ForPlan(id) {
				got = append(got, c.Subject)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("plan %s: ForPlan found %q, git grep %q", id, got, want)
		}
		var indexed []string
		for _, c := range ix.For(id) {
			indexed = append(indexed, c.Subject)
		}
		if !slices.Equal(indexed, want) {
			t.Errorf("plan %s: the PlanIndex found %q, git grep %q", id, indexed, want)
		}
	}
}
