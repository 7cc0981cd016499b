package lines

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/tui"
)

// Aggregate prints seed 000 §2.4's report after a run: waves, plans,
// status and commits, each plan's one-liner, and the issues met.
//
// commits counts each plan's commits made by the run; plans that were
// complete before it have none. The heading says how the run ended, and
// the mode is the one the run had (one-shot agents are not a team).
func Aggregate(w io.Writer, ph *plan.Phase, s phase.Snapshot, commits map[string]int) {
	byWave := map[int][]*phase.PlanStatus{}
	var waves []int
	for _, p := range s.Plans {
		if _, ok := byWave[p.Spec.Wave]; !ok {
			waves = append(waves, p.Spec.Wave)
		}
		byWave[p.Spec.Wave] = append(byWave[p.Spec.Wave], p)
	}
	sort.Ints(waves)
	title := ph.Slug
	if title == "" {
		title = ph.Dir
	}
	fmt.Fprintf(w, "\n## Phase %s: %s %s\n\n", ph.Number, title, reportHeading(s))
	fmt.Fprintf(w, "**Waves:** %d | **Plans:** %d/%d complete\n", len(waves), s.Count(phase.Complete), len(s.Plans))
	if s.Team {
		fmt.Fprintf(w, "**Mode:** Team (hive-execute-%s-%s) | **Checkpoints resolved inline:** %d\n", ph.Number, ph.Slug, s.Resolved)
	} else {
		fmt.Fprintf(w, "**Mode:** Standalone | **Checkpoints resolved:** %d\n", s.Resolved)
	}
	fmt.Fprintf(w, "**Spend:** %s\n", RunSpendText(s.Spent, s.Agent))
	if b := tui.BudgetSpent(s); b != "" {
		down := tui.Downgrades(s)
		if down == "" {
			down = "no"
		}
		fmt.Fprintf(w, "**Budget:** %s | **Models downgraded:** %s\n", b, down)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Wave | Plans | Status | Commits |")
	fmt.Fprintln(w, "|------|-------|--------|---------|")
	for _, wv := range waves {
		var ids []string
		status := map[string]int{}
		n := 0
		for _, p := range byWave[wv] {
			id := p.Spec.ID
			if p.Resolved > 0 {
				id += fmt.Sprintf(" (%d checkpoint(s) resolved)", p.Resolved)
			}
			ids = append(ids, id)
			status[StateWord(p.State)]++
			n += commits[p.Spec.ID]
		}
		fmt.Fprintf(w, "| %d | %s | %s | %d |\n", wv, strings.Join(ids, ", "), summarizeStates(status), n)
	}
	fmt.Fprintln(w, "\n### Plan Details")
	for i, p := range s.Plans {
		line := p.Spec.Name
		if sum := ph.Summaries[p.Spec.ID]; sum != nil && sum.OneLiner != "" {
			line = sum.OneLiner
		}
		if line == "" {
			line = p.Spec.ID
		}
		fmt.Fprintf(w, "%d. **%s**: %s (%s, %d commit(s))\n", i+1, p.Spec.ID, line, p.State, commits[p.Spec.ID])
	}
	fmt.Fprintln(w, "\n### Issues Encountered")
	issues := 0
	for _, p := range s.Plans {
		if p.State == phase.Failed || p.State == phase.Skipped {
			fmt.Fprintf(w, "- %s %s: %s\n", p.Spec.ID, p.State, p.Reason)
			issues++
		}
	}
	if issues == 0 {
		fmt.Fprintln(w, "None")
	}
}

// reportHeading says how the run ended, in the report's heading.
func reportHeading(s phase.Snapshot) string {
	switch {
	case !s.Finished:
		return "Execution Stopped"
	case s.Outcome == phase.OutcomeComplete:
		return "Execution Complete"
	case s.Outcome == phase.OutcomeAborted:
		return "Execution Aborted"
	case s.Outcome == phase.OutcomeGaps:
		return "Executed, Verification Found Gaps"
	}
	var parts []string
	for _, st := range []phase.PlanState{phase.Failed, phase.Skipped} {
		if n := s.Count(st); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) == 0 {
		return "Execution Finished: " + s.Outcome
	}
	return "Execution Finished with Issues (" + strings.Join(parts, ", ") + ")"
}

func summarizeStates(status map[string]int) string {
	if len(status) == 1 {
		for k := range status {
			return k
		}
	}
	var parts []string
	for _, k := range []string{"Complete", "Failed", "Skipped", "Running", "Pending"} {
		if status[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", status[k], strings.ToLower(k)))
		}
	}
	return strings.Join(parts, ", ")
}
