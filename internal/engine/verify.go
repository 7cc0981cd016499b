package engine

import (
	"time"

	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// verifyPending reports whether the phase is to be verified before the run
// finishes: every plan complete, verification asked for and not yet done.
func (e *Engine) verifyPending() bool {
	return e.spec.Verify && !e.aborted && e.vj.Result() == nil && plans.AllComplete(e.plans)
}

// verifyHost is the engine as the phase verification (verify.Job) sees it.
type verifyHost struct{ e *Engine }

func (h verifyHost) Now() time.Time { return h.e.now }

func (h verifyHost) Start(out []phase.Command, attempt int) ([]phase.Command, bool) {
	if out = h.e.holdTurns(out); h.e.budget.Open() != nil || h.e.waits.Wait != nil {
		return out, false
	}
	h.e.budget.Started(phase.VerifyID, attempt)
	return append(out, phase.Command{Type: phase.CmdStartAgent, Plan: phase.VerifyID, Attempt: attempt, Role: "verifier", MaxUSD: h.e.budget.Allotment(nil), Fallback: h.e.waits.FellBack}), true
}

func (h verifyHost) Spend(out []phase.Command, ev phase.Event, usd, cli float64) []phase.Command {
	return h.e.spend(out, nil, ev, usd, cli)
}

func (h verifyHost) Ask(out []phase.Command, cp *phase.Checkpoint) []phase.Command {
	return h.e.ask(out, cp)
}

func (h verifyHost) Announce(out []phase.Command, cp *phase.Checkpoint) []phase.Command {
	return h.e.announce(out, cp)
}

func (h verifyHost) Answered(cp *phase.Checkpoint) {
	h.e.queue.Remove(cp.Plan)
	h.e.queue.Resolve()
}
