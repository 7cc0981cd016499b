package lines

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/tui/pipelinescreen"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// Report prints the report of a run of hive run (hive report).
func Report(w io.Writer, r runreport.Report) {
	outcome := r.Outcome
	if outcome == "" {
		outcome = "unfinished"
		if r.Open != nil {
			outcome += ", waiting for you: " + r.Open.Question + " (hive run --resume --answer " + strings.Join(r.Open.Options, "|") + ")"
		}
	}
	if failed := r.FailedChecks(); len(failed) > 0 && r.Outcome != "" {
		outcome += ", but hive's own checks failed: " + strings.Join(failed, ", ")
	}
	fmt.Fprintf(w, "run %d: %s\n  workflow %s, started %s, %s\n", r.Run, r.Objective, r.Workflow, r.Started.Local().Format("2006-01-02 15:04"), outcome)
	fmt.Fprintf(w, "\n%s\n", tuikit.Wrap(r.Postmortem, 80))
	var plans []pipelinescreen.PlanState
	for _, p := range r.Implementers {
		plans = append(plans, pipelinescreen.PlanState{ID: p.ID, State: p.State})
	}
	fmt.Fprintf(w, "\n%s", ansi.Strip(pipelinescreen.View(r.Snapshot, plans, 80)))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "\nROLE\tSTATE\tATTEMPTS\tTIME\tTOKENS IN/OUT\tCOST\tREPORTED")
	for _, role := range r.Roles {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d/%d\t$%.2f\t%s\n", role.Job, role.State, role.Attempts, RoundDuration(role.Duration),
			role.Spend.InputTokens, role.Spend.OutputTokens, role.Spend.CostUSD, role.Status)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntotal: %d/%d tokens, $%.2f\n", r.Spend.InputTokens, r.Spend.OutputTokens, r.Spend.CostUSD)
	fmt.Fprint(w, r.Timeline.Text())
	if len(r.Implementers) > 0 {
		var parts []string
		for _, p := range r.Implementers {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", p.ID, p.State, RoundDuration(p.Finished.Sub(p.Started))))
		}
		how := "one after another"
		if r.Parallel {
			how = "in parallel"
		}
		fmt.Fprintf(w, "implementers, %s: %s\n", how, strings.Join(parts, ", "))
	}
	for _, c := range r.Challenges {
		fmt.Fprintf(w, "challenge: %s → %s (round %d): %s\n", c.From, c.To, c.Round, OneLineClip(c.Issue, 100))
	}
	for _, d := range r.Decisions {
		fmt.Fprintf(w, "decision (%s): %s → %s\n", d.By, OneLineClip(d.Question, 80), d.Choice)
	}
	if r.FixLoops > 0 {
		fmt.Fprintf(w, "fix loops: %d\n", r.FixLoops)
	}
	switch t := r.Tests; {
	case t == nil:
	case t.None:
		fmt.Fprintf(w, "tests: skipped: %s (not a pass; set commands.test in .hive/config.json)\n", NoTestsText(t))
	default:
		fmt.Fprintf(w, "tests: %s: exit %d, %d passed, %d failed\n", t.Command, t.ExitCode, t.Passed, t.Failed)
	}
	fmt.Fprint(w, r.PullRequest.Text())
	where := "on branch " + r.Branch
	if r.Merged {
		where = "merged"
	}
	fmt.Fprintf(w, "commits (%d, %s):\n", len(r.Commits), where)
	for _, c := range r.Commits {
		fmt.Fprintf(w, "  %s\n", c)
	}
	if len(r.Confidence) > 0 {
		fmt.Fprintln(w, "confidence, from hive's own checks:")
		for _, c := range r.Confidence {
			fmt.Fprintf(w, "  %-12s %s\n", c.Role, c.String())
		}
	}
	var evaluated []string
	for _, j := range r.Snapshot.Jobs {
		if e := j.Evaluation; e != nil {
			var verdicts []string
			for _, v := range e.Verdicts {
				verdicts = append(verdicts, v.Aspect+" "+cmp.Or(v.Verdict, "none"))
			}
			evaluated = append(evaluated, fmt.Sprintf("  %-12s %s: %s", j.ID, e.Summary(), strings.Join(verdicts, ", ")))
		}
	}
	if len(evaluated) > 0 {
		fmt.Fprintln(w, "evaluated, as each role finished (its last attempt):")
		fmt.Fprintln(w, strings.Join(evaluated, "\n"))
	}
	if len(r.Screenshots) > 0 {
		fmt.Fprintf(w, "screenshots (%d):\n", len(r.Screenshots))
		for _, p := range r.Screenshots {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

// RoundDuration keeps tenths of a second under ten seconds.
func RoundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
