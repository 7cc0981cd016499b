package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/phase"
)

// limited handles a turn that ended on the provider's limit (package
// limits): a limit that passes with time makes the run wait, and the
// plan's agent is stopped and its plan goes back to the queue, to go on
// from its commits when the wait ends, without spending a retry. A login
// the provider refused, and a limit met by a resolver or the verifier, go
// the way a failed turn goes.
func (e *Engine) limited(ev phase.Event) ([]phase.Command, error) {
	if ev.Limit == nil {
		return nil, fmt.Errorf("limited %s without its limit", ev.Plan)
	}
	p := e.byID[ev.Plan]
	switch {
	case p != nil && (ev.Attempt != p.Attempt || p.State != phase.Running && p.State != phase.Waiting):
		return nil, nil // an earlier attempt's, or one whose limit was met already (codex says it twice)
	case ev.Plan == phase.VerifyID && !e.vj.Working(ev.Attempt):
		return nil, nil
	}
	out, failed, waits := e.waits.Met(ev, e.now, e.rules, e.spec.OnLimit)
	if !waits {
		return e.step(failed)
	}
	if p == nil || p.State != phase.Running || p.Stage != phase.StageWork || p.Check != phase.CheckNone {
		// A resolver's, the verifier's, or an agent's at a checkpoint: the
		// wait holds what starts next; the job goes the way a failed turn
		// does.
		cmds, err := e.step(failed)
		return append(out, cmds...), err
	}
	out = p.Interrupt(out, "the provider's "+ev.Limit.Describe())
	return e.schedule(e.restart(out, p, e.waits.Restart(*ev.Limit))), nil
}

// limitWake ends the wait once its time has come, and starts again what
// it held, unless the budget still holds them.
func (e *Engine) limitWake(out []phase.Command) []phase.Command {
	out, over := e.waits.Wake(out, e.now)
	if !over || e.budget.Open() != nil {
		return out
	}
	return e.unhold(out)
}
