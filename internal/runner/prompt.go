package runner

import (
	_ "embed"
	"strings"
	"text/template"

	"github.com/hivectl/hive/internal/plan"
)

//go:embed prompts/executor.md
var executorTemplate string

var executorPrompt = template.Must(template.New("executor").Parse(executorTemplate))

// ExecutorPrompt is the first message an executor agent gets: where its plan
// is, which protocol to speak, and the commit and SUMMARY rules (seed 000's
// team prompt, seed 002's subagent prompt). It names files by path and does
// not inline them, so the orchestrator's message stays small.
func ExecutorPrompt(ph *plan.Phase, p *plan.Plan, team bool) string {
	var b strings.Builder
	err := executorPrompt.Execute(&b, map[string]any{
		"ID":          p.ID,
		"Name":        p.Name,
		"Path":        p.Path,
		"PlanNumber":  p.PlanNumber,
		"PhaseNumber": ph.Number,
		"PhaseSlug":   ph.Slug,
		"Tasks":       len(p.Tasks),
		"Summary":     p.SummaryPath(),
		"Team":        team,
	})
	if err != nil {
		panic("executor prompt template: " + err.Error()) // the template is embedded: a failure is a bug
	}
	return b.String()
}
