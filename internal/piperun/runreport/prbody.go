package runreport

import (
	"fmt"
	"strings"
	"time"
)

// PRBody is a run's report as a pull request's description, in Markdown.
func PRBody(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nhive run %d, workflow %s: %s.\n", mdLine(r.Objective), r.Run, r.Workflow, r.Outcome)
	if c := r.Snapshot.Spec.Closes; c != "" {
		fmt.Fprintf(&b, "\n%s\n", mdLine(c))
	}
	if len(r.Roles) > 0 {
		b.WriteString("\n| Role | State | Attempts | Time | Cost | Reported |\n|---|---|---|---|---|---|\n")
		for _, role := range r.Roles {
			reported := role.Status
			if role.Summary != "" {
				reported += ": " + role.Summary
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | $%.2f | %s |\n", role.Job, role.State, role.Attempts,
				roundDuration(role.Duration), role.Spend.CostUSD, mdCell(reported))
		}
		fmt.Fprintf(&b, "\nTotal: %d/%d tokens, $%.2f.\n", r.Spend.InputTokens, r.Spend.OutputTokens, r.Spend.CostUSD)
	}
	if t := r.Tests; t != nil {
		fmt.Fprintf(&b, "\nTests: `%s`: exit %d, %d passed, %d failed.\n", strings.ReplaceAll(t.Command, "`", "'"), t.ExitCode, t.Passed, t.Failed)
	}
	if len(r.Challenges) > 0 {
		b.WriteString("\n### Challenges\n\n")
		for _, c := range r.Challenges {
			fmt.Fprintf(&b, "- %s → %s (round %d): %s\n", c.From, c.To, c.Round, mdLine(c.Issue))
		}
	}
	if len(r.Decisions) > 0 {
		b.WriteString("\n### Decisions\n\n")
		for _, d := range r.Decisions {
			fmt.Fprintf(&b, "- %s (%s): %s → %s\n", d.Job, d.By, mdLine(d.Question), mdLine(d.Choice))
		}
	}
	if fs := r.Snapshot.Findings; len(fs) > 0 {
		// What the reviewing roles found, and what became of it: a
		// reviewer of the pull request starts from there.
		b.WriteString("\n### Findings\n\n")
		for _, f := range fs {
			where := ""
			if f.File != "" {
				where = " `" + strings.ReplaceAll(f.File, "`", "'") + "`"
				if f.Line > 0 {
					where = fmt.Sprintf(" `%s:%d`", strings.ReplaceAll(f.File, "`", "'"), f.Line)
				}
			}
			status := f.Status
			if f.Reason != "" {
				status += ": " + mdLine(f.Reason)
			}
			fmt.Fprintf(&b, "- **%s** %s%s %s (%s, %s)\n", f.Severity, f.ID, where, mdLine(f.Title), f.Job, status)
		}
	}
	if r.FixLoops > 0 {
		fmt.Fprintf(&b, "\nFix loops: %d.\n", r.FixLoops)
	}
	if len(r.Commits) > 0 {
		b.WriteString("\n### Commits\n\n")
		for _, c := range r.Commits {
			fmt.Fprintf(&b, "- %s\n", mdLine(c))
		}
	}
	fmt.Fprintf(&b, "\n---\nOpened by hive run; `hive report %d` gives the whole account.\n", r.Run)
	return b.String()
}

// roundDuration keeps tenths of a second under ten seconds, as hive
// report does.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// mdLine is text on one Markdown line.
func mdLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCell is text in one Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(mdLine(s), "|", "\\|") }

// oneLine is s on one line, cut to 200 characters.
func oneLine(s string) string {
	s = mdLine(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
