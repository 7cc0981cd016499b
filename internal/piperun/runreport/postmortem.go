package runreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/roleplan"
)

// Postmortem is the paragraph a developer wants before the next task on
// the codebase (seed 003 §6.2), told from the run's report: what it set
// out to do and how it ended, which roles needed more than one attempt,
// the challenges, the fix loops, the decisions, the findings and what
// became of them. It is built from the journal alone, the same every time.
func Postmortem(r Report) string {
	var s []string
	end := "did not finish"
	switch r.Outcome {
	case roleplan.OutcomeComplete:
		end = "completed"
	case "":
		end = "is still under way"
	default:
		end = "ended " + r.Outcome
		if reason := r.Snapshot.Reason; reason != "" {
			end += " (" + oneLine(reason) + ")"
		}
	}
	took := ""
	if !r.Finished.IsZero() {
		took = " in " + r.Finished.Sub(r.Started).Round(time.Second).String()
	}
	s = append(s, fmt.Sprintf("Run %d (workflow %s) set out to %s and %s%s, spending $%.2f.", r.Run, r.Workflow, strings.TrimSuffix(r.Objective, "."), end, took, r.Spend.CostUSD))
	var again []string
	for _, role := range r.Roles {
		if role.Attempts > 1 {
			again = append(again, fmt.Sprintf("the %s %d", role.Job, role.Attempts))
		}
	}
	if len(again) > 0 {
		s = append(s, "Attempts beyond the first: "+strings.Join(again, ", ")+".")
	}
	for _, c := range r.Challenges {
		s = append(s, fmt.Sprintf("The %s challenged the %s (round %d): %s.", c.From, c.To, c.Round, strings.TrimSuffix(oneLine(c.Issue), ".")))
	}
	if r.FixLoops > 0 {
		s = append(s, fmt.Sprintf("%d fix loop(s) sent failing tests or a failing build back to be fixed.", r.FixLoops))
	}
	for _, d := range r.Snapshot.Decisions {
		// Quoted as written: %q would escape the question's own quotes.
		s = append(s, fmt.Sprintf(`Asked "%s", the run went with "%s" (%s).`, oneLine(d.Question), oneLine(d.Choice), d.By))
	}
	counts := map[string]int{}
	var accepted []string
	for _, f := range r.Snapshot.Findings {
		counts[f.Status]++
		if f.Status == roleplan.FindingAccepted {
			accepted = append(accepted, fmt.Sprintf("%s (%s)", oneLine(f.Title), f.Reason))
		}
	}
	if n := len(r.Snapshot.Findings); n > 0 {
		s = append(s, fmt.Sprintf("Reviewers reported %d finding(s): %d fixed, %d accepted, %d deferred, %d open.", n,
			counts[roleplan.FindingFixed], counts[roleplan.FindingAccepted], counts[roleplan.FindingDeferred], counts[roleplan.FindingOpen]))
	}
	if len(accepted) > 0 {
		s = append(s, "Accepted as they are: "+strings.Join(accepted, "; ")+".")
	}
	switch t := r.Tests; {
	case t == nil:
	case t.None && t.Command != "":
		s = append(s, fmt.Sprintf("No test ran (%s found none): the work is not verified by tests.", t.Command))
	case t.None:
		s = append(s, "No test ran (hive found no tests): the work is not verified by tests.")
	case t.Ran():
		s = append(s, fmt.Sprintf("The last test run (%s) passed %d and failed %d.", t.Command, t.Passed, t.Failed))
	}
	if failed := r.FailedChecks(); len(failed) > 0 {
		s = append(s, "Hive's own checks failed: "+strings.Join(failed, ", ")+".")
	}
	if len(again) == 0 && len(r.Challenges) == 0 && r.FixLoops == 0 && len(r.Snapshot.Findings) == 0 && r.Outcome == roleplan.OutcomeComplete {
		s = append(s, "Nothing went back for rework.")
	}
	return strings.Join(s, " ")
}
