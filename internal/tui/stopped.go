package tui

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// StoppedText is what the terminal says once the dashboard is gone after a
// run was stopped (ctrl+c, or a signal): that it stopped, which plans were
// under way and that their work is kept, and the command that resumes it.
// s is the run's state when it stopped; resume is the command line. It is
// rendered for a terminal width cells wide (0: no wrapping), one trailing
// newline.
func StoppedText(s phase.Snapshot, resume string, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s the run of phase %s was interrupted before its plans were done.\n", tuikit.StAction.Render("Stopped:"), s.Phase)
	var under, waiting []string
	for _, p := range s.Plans {
		switch p.State {
		case phase.Running:
			under = append(under, fmt.Sprintf("  • %s %s — running, %d/%d tasks done", tuikit.StBold.Render(p.Spec.ID), p.Spec.Name, p.TasksDone, p.Spec.Tasks))
		case phase.Waiting:
			what := "a checkpoint"
			if p.Open != nil {
				what = Title(*p.Open)
			}
			under = append(under, fmt.Sprintf("  • %s %s — waiting for you (%s), %d/%d tasks done", tuikit.StBold.Render(p.Spec.ID), p.Spec.Name, what, p.TasksDone, p.Spec.Tasks))
		case phase.Pending:
			waiting = append(waiting, p.Spec.ID)
		}
	}
	if len(under) > 0 {
		b.WriteString("Under way when it stopped:\n" + strings.Join(under, "\n") + "\n")
		where := "in the repository"
		if s.Worktrees {
			var branches []string
			for _, p := range s.Plans {
				if p.State == phase.Running || p.State == phase.Waiting {
					branches = append(branches, gitx.PlanBranch(s.Phase, p.Spec.ID))
				}
			}
			where = "on the plan's branch (" + strings.Join(branches, ", ") + ")"
		}
		fmt.Fprintf(&b, "Their work is kept: each task done is a commit %s, and the journal (.hive/journal.db) keeps the run's state and your answers. Resuming starts their agents again where they stopped; an open checkpoint is asked again.\n", where)
	}
	fmt.Fprintf(&b, "Complete: %d of %d plans.", s.Count(phase.Complete), len(s.Plans))
	if len(waiting) > 0 {
		fmt.Fprintf(&b, " Not started yet: %s.", strings.Join(waiting, ", "))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Resume with:\n  %s\n", tuikit.StBold.Render(resume))
	var out []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out = append(out, tuikit.WrapHanging(l, width)...)
	}
	return strings.Join(out, "\n") + "\n"
}
