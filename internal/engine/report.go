package engine

import (
	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// reported handles a plan agent's HIVE_REPORT. The report is kept on the
// plan (the last one wins); blocked fails the plan like PLAN FAILED;
// needs_input and challenge stop for a human (checkpoints.FromReport).
func (e *Engine) reported(out []phase.Command, p *plans.Plan, r *work.Report) []phase.Command {
	p.Report = r
	cp, blocked := checkpoints.FromReport(r)
	switch {
	case r.Status == work.ReportBlocked:
		return e.failing(out, p, "the agent reported blocked: "+blocked, false)
	case cp != nil:
		p.LastAnswered = nil
		return e.raise(out, p, cp)
	}
	return out
}
