package cli

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
)

// TestRenderedReport: after the dashboard, the phase report is rendered:
// no markdown markers on the screen, the table lined up, the content kept.
func TestRenderedReport(t *testing.T) {
	ph := &plan.Phase{Number: "01", Slug: "core-library", Dir: ".planning/phases/01-core-library",
		Summaries: map[string]*plan.Summary{"01-01": {OneLiner: "Book type with **validation**"}}}
	snap := phase.Snapshot{Phase: "01", Finished: true, Outcome: phase.OutcomeFailed, Plans: []*phase.PlanStatus{
		{Spec: phase.PlanSpec{ID: "01-01", Name: "Book model", Wave: 1}, State: phase.Complete},
		{Spec: phase.PlanSpec{ID: "01-02", Name: "Storage", Wave: 1}, State: phase.Complete, Resolved: 1},
		{Spec: phase.PlanSpec{ID: "01-03", Name: "Search", Wave: 2}, State: phase.Failed, Reason: "spot-check failed"},
	}}
	var b strings.Builder
	renderReport(&b, func(w io.Writer) { lines.Aggregate(w, ph, snap, map[string]int{"01-01": 3, "01-02": 4}) })
	screen := ansi.Strip(b.String())
	for _, marker := range []string{"##", "**", "|---", "| Wave |"} {
		if strings.Contains(screen, marker) {
			t.Errorf("the report shows the markdown %q:\n%s", marker, screen)
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Phase 01: core-library Execution Finished with Issues \(1 failed\)$`),
		regexp.MustCompile(`(?m)^Waves: 2 \| Plans: 2/3 complete$`),
		regexp.MustCompile(`(?m)^ Wave +Plans +Status +Commits$`),
		regexp.MustCompile(`(?m)^ 1 +01-01, 01-02 \(1 checkpoint\(s\) resolved\) +Complete +7$`),
		regexp.MustCompile(`(?m)^ 2 +01-03 +Failed +0$`),
		regexp.MustCompile(`(?m)^1\. 01-01: Book type with validation \(complete, 3 commit\(s\)\)$`),
		regexp.MustCompile(`(?m)^• 01-03 failed: spot-check failed$`),
	} {
		if !want.MatchString(screen) {
			t.Errorf("the report lacks %s:\n%s", want, screen)
		}
	}
}
