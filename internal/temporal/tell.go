package temporal

import (
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/phase"
)

// A phase's workflow that hive run's workflow started as its child
// (RunInput.Tells) tells its parent what the parent waits for besides its
// end: see internal/temporal/objective.

// PhaseSignal carries a phase's news (PhaseNews) from its workflow to its
// parent's.
const PhaseSignal = "hive-phase"

// PhaseNews is what a phase's workflow tells its parent: the plans that
// ended, and, when it stopped for a human, its state.
type PhaseNews struct {
	ID      string          `json:"id"`
	Notes   []string        `json:"notes,omitempty"`
	Stopped *phase.Snapshot `json:"stopped,omitempty"`
}

// tell has a phase's workflow tell its parent what the step of ev said:
// the plans that ended, and that it stopped for a human (also when an
// answer it was given, a raise that does not lift its ceiling, was
// refused: it still waits).
func (p *dispatcher) tell(ev phase.Event, cmds []phase.Command, err error) {
	parent := workflow.GetInfo(p.ctx).ParentWorkflowExecution
	if parent == nil {
		return
	}
	news := PhaseNews{ID: workflow.GetInfo(p.ctx).WorkflowExecution.ID}
	stopped := err != nil && ev.Type == phase.EvAnswer
	for _, c := range cmds {
		switch {
		case c.Type == phase.CmdPlanState && c.State.Final():
			news.Notes = append(news.Notes, "plan "+c.Plan+" "+string(c.State))
		case c.Type == phase.CmdStopForHuman:
			stopped = true
		}
	}
	if snap := p.snapshot(); stopped && len(snap.Queue) > 0 {
		news.Stopped = &snap
	}
	if news.Notes == nil && news.Stopped == nil {
		return
	}
	// Counted as work out: the workflow ends only once its parent has it.
	p.pending++
	f := workflow.SignalExternalWorkflow(p.ctx, parent.ID, "", PhaseSignal, news)
	p.sel.AddFuture(f, func(workflow.Future) { p.pending-- })
}
