package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// spend counts a turn's usage (already added to its job) into the run's
// total and applies the budget: the 80 % downgrade, a plan's ceiling, and
// the run's ceiling, which interrupts every working agent and opens the
// budget checkpoint. The overshoot is the turn that crossed it.
func (e *Engine) spend(out []phase.Command, p *plans.Plan, ev phase.Event, usd, cli float64) []phase.Command {
	e.budget.Count(ev, usd, cli)
	if e.finished || e.aborted {
		// A turn that was in flight when the run ended: it counts, but
		// there is no work left to hold, nor anyone to ask.
		return out
	}
	current := p != nil && ev.Attempt == p.Attempt
	if current {
		out = e.planCeiling(out, p)
	}
	note, act, why := e.budget.Check(e.rules, current && ev.Type == phase.EvUsage, func() bool { return plans.WorkLeft(e.plans) })
	if note != "" {
		out = append(out, phase.Command{Type: phase.CmdNote, Text: note})
	}
	switch act {
	case budget.Stop:
		out = e.budgetStop(out, why)
	case budget.Halt:
		out = e.halt(out, why)
	case budget.HoldTurn:
		out = e.haltPlan(out, p, why)
	}
	return out
}

// turnShort reports whether the run's dollar budget is too short for
// another turn, and says so (budget.State.TurnShort).
func (e *Engine) turnShort() (string, bool) { return e.budget.TurnShort(e.rules) }

// holdTurns opens the budget checkpoint when less than a turn is left
// (turnShort): every new turn waits for the human's answer, as at the
// ceiling, while the turns in flight go on.
func (e *Engine) holdTurns(out []phase.Command) []phase.Command {
	if why, short := e.turnShort(); short && e.budget.Open() == nil {
		out = e.askBudget(out, why)
	}
	return out
}

// planCeiling interrupts the agent at work on p once the plan has spent its
// own ceiling (budget.plan_usd), resolvers' turns included: an executor's
// plan goes to the human as a failure, a resolver's conflict is left to be
// resolved by hand. A plan between agents when it crosses (at a
// checkpoint, a spot-check, a merge, or held by the budget) is stopped
// where its next agent would start: see planOver.
func (e *Engine) planCeiling(out []phase.Command, p *plans.Plan) []phase.Command {
	spent, over := e.planOver(p)
	switch {
	case !over || p.State != phase.Running:
	case p.Stage == phase.StageWork && p.Check == phase.CheckNone:
		out = e.planFailed(out, p, spent)
	case p.Stage == phase.StageResolve && p.AgentLive:
		out = p.Interrupt(out, spent)
		out = e.conflict(out, p, spent)
	}
	return out
}

// planOver reports whether p has spent its own ceiling, and how much, when
// no human has since let it go on (a retry of the failure that said so): a
// plan over its ceiling gets no more agent work without a human's say.
func (e *Engine) planOver(p *plans.Plan) (string, bool) {
	return e.budget.PlanOver(&p.PlanStatus, p.PastCeiling)
}

// planFailed interrupts p's agent, if it is live, and hands the plan, over
// its ceiling, to the human as a failure.
func (e *Engine) planFailed(out []phase.Command, p *plans.Plan, spent string) []phase.Command {
	why := spent + "; raise budget.plan_usd, or retry to give it one more agent"
	return e.failing(p.Interrupt(out, why), p, why, false)
}

// budgetStop interrupts every agent at work and asks the human to raise
// the budget or stop.
func (e *Engine) budgetStop(out []phase.Command, why string) []phase.Command {
	return e.askBudget(e.halt(out, why), why)
}

// halt interrupts every agent at work: executors' plans go back to the
// queue, to continue where their commits stand; a resolver's plan and the
// verifier wait for the raise (see unhold).
func (e *Engine) halt(out []phase.Command, why string) []phase.Command {
	for _, p := range e.plans {
		out = e.haltPlan(out, p, why)
	}
	return e.vj.Halt(out, why)
}

// haltPlan interrupts p's agent if it is at work: an executor's plan goes
// back to the queue, a resolver's waits for the raise.
func (e *Engine) haltPlan(out []phase.Command, p *plans.Plan, why string) []phase.Command {
	switch {
	case p.State == phase.Running && p.Stage == phase.StageWork && p.Check == phase.CheckNone:
		out = p.Interrupt(out, why)
		out = e.restart(out, p, why)
	case p.State == phase.Running && p.Stage == phase.StageResolve:
		// Its conflict gets a fresh resolver after the raise: this one
		// stopped for the budget, not for failing.
		out = p.Interrupt(out, why)
		p.Stage = phase.StageHeld
		p.Integ.Again()
		out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: integrate.HeldForBudget})
	}
	return out
}

// askBudget opens the budget checkpoint: no agent starts until the human
// raises the budget or stops the run.
func (e *Engine) askBudget(out []phase.Command, why string) []phase.Command {
	return e.ask(out, e.budget.Ask(why, e.now))
}

// budgetAnswered applies the answer to the budget checkpoint: stop ends
// the run (what is done stays done); raise lifts the ceilings, and the
// interrupted plans continue.
func (e *Engine) budgetAnswered(ev phase.Event) ([]phase.Command, error) {
	stop, err := e.budget.Answer(ev.Text)
	if err != nil {
		return nil, err
	}
	if stop {
		why := "stopped at the budget: " + e.budget.Open().Details
		return e.abort(e.closeBudget(nil, "stop", ev.By), why), nil
	}
	out := e.closeBudget(nil, "raise to "+e.budget.Text(), ev.By)
	out = append(out, phase.Command{Type: phase.CmdNote, Text: "budget raised to " + e.budget.Text()})
	return e.unhold(out), nil
}

// closeBudget closes the budget checkpoint with answer, by by.
func (e *Engine) closeBudget(out []phase.Command, answer, by string) []phase.Command {
	if by == "" {
		by = "human"
	}
	cp := e.budget.Close(answer, by)
	e.queue.Remove(phase.BudgetID)
	if by != byHive {
		e.queue.Resolve()
	}
	return append(out, phase.Command{Type: phase.CmdCheckpointClosed, Plan: phase.BudgetID, Checkpoint: cp.Copy()})
}

// byHive closes a checkpoint that nobody needs to answer any more.
const byHive = "hive"

// unhold starts again, after a raise, the agents that the budget checkpoint
// held outside the plans' queue: a resolver's plan merges again (the disk
// decides whether a conflict is left for a fresh resolver) and the
// verifier starts afresh.
func (e *Engine) unhold(out []phase.Command) []phase.Command {
	for _, p := range e.plans {
		if p.State == phase.Running && p.Stage == phase.StageHeld {
			out = e.merge(out, p)
		}
	}
	return e.vj.Unhold(verifyHost{e}, out)
}

// held reports whether p may not start now for the budget, opening the
// budget checkpoint when even the cheapest model would not fit. Otherwise
// it sets the rung p's agent starts on.
func (e *Engine) held(out []phase.Command, p *plans.Plan) ([]phase.Command, bool) {
	if e.budget.Open() != nil || e.waits.Wait != nil {
		return out, true
	}
	rung, short := e.budget.Fit(p.Spec.ID, max(1, p.Spec.Tasks-p.TasksDone), plans.Statuses(e.plans))
	if short != "" {
		return e.budgetStop(out, short), true
	}
	if out = e.holdTurns(out); e.budget.Open() != nil {
		return out, true
	}
	if rung > e.budget.Rung() && rung != p.Rung {
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: fmt.Sprintf("budget: $%.2f left; plan %s starts %d model step(s) down to fit", e.budget.Left(), p.Spec.ID, rung)})
	}
	p.Rung = rung
	return out, false
}
