package runreport

import (
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

func TestPostmortem(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	r := Report{Run: 4, Objective: "add rate limiting.", Workflow: "full", Started: t0, Finished: t0.Add(95 * time.Second), Outcome: roleplan.OutcomeComplete,
		Roles:      []RoleReport{{Job: "architect", Attempts: 1}, {Job: "tester", Attempts: 3}},
		Challenges: []roleplan.Challenge{{From: "tester", To: "implementer", Issue: "HEAD gets 405.\nsee logs", Round: 1}},
		FixLoops:   1, Spend: work.Spend{CostUSD: 1.234},
		Tests: &roleplan.Tests{Command: "go test ./...", Passed: 12},
		Snapshot: roleplan.Snapshot{
			Decisions: []roleplan.Decision{{Job: "architect", Question: "REST or GraphQL?", Choice: "REST", By: "default"}},
			Findings: []roleplan.Finding{{ID: "F1", Title: "no auth", Status: roleplan.FindingFixed},
				{ID: "F2", Title: "verbose logs", Status: roleplan.FindingAccepted, Reason: "debug build only"}}}}
	want := "Run 4 (workflow full) set out to add rate limiting and completed in 1m35s, spending $1.23. " +
		"Attempts beyond the first: the tester 3. The tester challenged the implementer (round 1): HEAD gets 405. see logs. " +
		"1 fix loop(s) sent failing tests or a failing build back to be fixed. " +
		`Asked "REST or GraphQL?", the run went with "REST" (default). ` +
		"Reviewers reported 2 finding(s): 1 fixed, 1 accepted, 0 deferred, 0 open. Accepted as they are: verbose logs (debug build only). " +
		"The last test run (go test ./...) passed 12 and failed 0."
	if got := Postmortem(r); got != want {
		t.Errorf("Postmortem =\n%s\nwant\n%s", got, want)
	}
	// Prose, not Go syntax: a question's own quotes are not escaped; no
	// test run is said, never "(none)"; a check that failed is named.
	untested := Report{Run: 2, Objective: "add a version endpoint", Workflow: "full", Started: t0, Finished: t0.Add(time.Second), Outcome: roleplan.OutcomeComplete,
		Tests:      &roleplan.Tests{None: true, Output: "no tests found"},
		Confidence: []confidence.Score{{Role: "implementer", Checks: []confidence.Check{{Name: "build passes", Skipped: true}, {Name: "tests pass"}, {Name: "no new TODO/FIXME", OK: true}}}},
		Snapshot:   roleplan.Snapshot{Decisions: []roleplan.Decision{{Job: "interviewer", Question: `How much of "add a version endpoint" is in scope?`, Choice: `just "GET /version"`, By: "human"}}}}
	want = "Run 2 (workflow full) set out to add a version endpoint and completed in 1s, spending $0.00. " +
		`Asked "How much of "add a version endpoint" is in scope?", the run went with "just "GET /version"" (human). ` +
		"No test ran (hive found no tests): the work is not verified by tests. Hive's own checks failed: tests pass (implementer). Nothing went back for rework."
	if got := Postmortem(untested); got != want {
		t.Errorf("Postmortem =\n%s\nwant\n%s", got, want)
	}
	untested.Tests = &roleplan.Tests{None: true, Command: "python3 -m pytest"}
	if got := Postmortem(untested); !strings.Contains(got, "No test ran (python3 -m pytest found none)") {
		t.Errorf("pytest found no test: %s", got)
	}
	quiet := Report{Run: 1, Objective: "fix the typo", Workflow: "quick", Started: t0, Finished: t0.Add(time.Second), Outcome: roleplan.OutcomeComplete}
	if got := Postmortem(quiet); got != "Run 1 (workflow quick) set out to fix the typo and completed in 1s, spending $0.00. Nothing went back for rework." {
		t.Errorf("quiet run: %s", got)
	}
}
