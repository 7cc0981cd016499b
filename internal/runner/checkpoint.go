package runner

import (
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
)

// stops lists a plan's checkpoint tasks for the engine: their gates decide
// what --yes may answer, and a decision's options give its default.
func stops(p *plan.Plan) []phase.Stop {
	var out []phase.Stop
	for _, t := range p.Tasks {
		if !t.IsCheckpoint() {
			continue
		}
		st := phase.Stop{Task: t.Number, Type: strings.TrimPrefix(t.Type, "checkpoint:"), Gate: t.Gate}
		if t.Decision != nil {
			for _, o := range t.Decision.Options {
				st.Options = append(st.Options, o.ID)
			}
		}
		out = append(out, st)
	}
	return out
}
