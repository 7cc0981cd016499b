package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// turnRules is the engine version from which a dollar budget holds new
// turns to the largest turn seen (turnShort).
const turnRules = 7

// budgetState is the engine's record of the budget as it goes.
type budgetState struct {
	phase.Budget
	spent work.Spend        // every agent's spend in the run: plans, resolvers, verifier
	open  *phase.Checkpoint // the budget checkpoint, while it waits: no agent starts meanwhile
	// ladder is where new agents start on the executor's model ladder.
	ladder work.Ladder
	// turns are the agents' turns, for the rule that holds new turns to
	// what is left (turnShort, engine version 7).
	turns work.Turns
}

// reached reports whether the run's spend has reached its ceiling, and how.
func (b *budgetState) reached() (string, bool) { return b.Reached(b.spent) }

// share is the largest share of a ceiling spent so far.
func (b *budgetState) share() float64 { return b.Share(b.spent) }

// spend counts a turn's usage (already added to its job) into the run's
// total and applies the budget: the 80 % downgrade, a plan's ceiling, and
// the run's ceiling, which interrupts every working agent and opens the
// budget checkpoint. The overshoot is the turn that crossed it.
func (e *Engine) spend(out []phase.Command, p *plan, ev phase.Event, usd, cli float64) []phase.Command {
	countTurn(&e.budget.spent, ev, usd, cli)
	e.budget.turns.Spent(ev.Plan, ev.Attempt, usd, ev.Type == phase.EvUsage)
	if e.finished || e.aborted {
		// A turn that was in flight when the run ended: it counts, but
		// there is no work left to hold, nor anyone to ask.
		return out
	}
	if p != nil && ev.Attempt == p.Attempt {
		out = e.planCeiling(out, p)
	}
	if !e.budget.Limited() {
		return out
	}
	what, reached := e.budget.reached()
	if text, ok := e.budget.ladder.Warn(e.budget.share(), !reached && e.workLeft(), len(e.budget.TaskUSD) > 1, "agents"); ok {
		out = append(out, phase.Command{Type: phase.CmdNote, Text: text})
	}
	switch {
	case reached && e.budget.open == nil:
		out = e.budgetStop(out, "budget reached: "+what)
	case reached && e.rules >= turnRules:
		// The checkpoint opened while less than a turn was left, and the
		// turns in flight went on: at the ceiling they stop.
		out = e.halt(out, "budget reached: "+what)
	case e.budget.open != nil && e.rules >= turnRules && ev.Type == phase.EvUsage && p != nil && ev.Attempt == p.Attempt:
		// The checkpoint holds every new turn: an agent whose turn ended
		// starts no other of its own until the budget is raised.
		out = e.haltPlan(out, p, e.budget.open.Details)
	}
	return out
}

// turnShort reports whether the run's dollar budget is too short for
// another turn, and says so. A turn may cost as much as the largest so far
// (before any turn ended, a task's estimate, if there is one): the next
// one starts only if what is left holds it and, as much again, each turn
// in flight (less what that turn has reported). Turns that cost no more
// than the largest before them then never pass the ceiling together.
func (e *Engine) turnShort() (string, bool) {
	b := &e.budget
	if e.rules < turnRules {
		return "", false
	}
	estimate := 0.0
	if est := b.TaskUSD; len(est) > 0 {
		estimate = est[min(b.ladder.Rung, len(est)-1)]
	}
	why, short := b.turns.Short(b.USD, b.spent.CostUSD, estimate, "a task's estimate, before any turn ended")
	if !short {
		return "", false
	}
	return "budget reached: " + why, true
}

// holdTurns opens the budget checkpoint when less than a turn is left
// (turnShort): every new turn waits for the human's answer, as at the
// ceiling, while the turns in flight go on.
func (e *Engine) holdTurns(out []phase.Command) []phase.Command {
	if why, short := e.turnShort(); short && e.budget.open == nil {
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
func (e *Engine) planCeiling(out []phase.Command, p *plan) []phase.Command {
	spent, over := e.planOver(p)
	switch {
	case !over || p.State != phase.Running:
	case p.Stage == phase.StageWork && p.check == phase.CheckNone:
		out = e.planFailed(out, p, spent)
	case p.Stage == phase.StageResolve && p.agentLive:
		out = e.interrupt(out, p, spent)
		out = e.conflict(out, p, spent)
	}
	return out
}

// planOver reports whether p has spent its own ceiling, and how much, when
// no human has since let it go on (a retry of the failure that said so): a
// plan over its ceiling gets no more agent work without a human's say.
func (e *Engine) planOver(p *plan) (string, bool) {
	if e.budget.PlanUSD <= 0 || p.Spend.CostUSD < e.budget.PlanUSD || p.pastCeiling {
		return "", false
	}
	return fmt.Sprintf("the plan's budget is spent ($%.2f of $%.2f)", p.Spend.CostUSD, e.budget.PlanUSD), true
}

// planFailed interrupts p's agent, if it is live, and hands the plan, over
// its ceiling, to the human as a failure.
func (e *Engine) planFailed(out []phase.Command, p *plan, spent string) []phase.Command {
	why := spent + "; raise budget.plan_usd, or retry to give it one more agent"
	return e.failing(e.interrupt(out, p, why), p, why, false)
}

// interrupt ends the turn of p's live agent now, before its session
// closes (Command.Interrupt): what stops for the budget or a guard spends
// no more than the turn in flight.
func (e *Engine) interrupt(out []phase.Command, p *plan, why string) []phase.Command {
	if p.agentLive {
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID, Interrupt: true, Reason: why})
		p.agentLive = false
	}
	return out
}

// workLeft reports whether any plan is still to be done.
func (e *Engine) workLeft() bool {
	for _, p := range e.plans {
		if !p.State.Final() {
			return true
		}
	}
	return false
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
	if v := &e.vj; v.Stage == phase.VerifyAgent {
		if v.agentLive {
			out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: phase.VerifyID, Attempt: v.Attempt, PID: v.PID, Interrupt: true, Reason: why})
			v.agentLive = false
		}
		v.Stage = phase.VerifyHeld
	}
	return out
}

// haltPlan interrupts p's agent if it is at work: an executor's plan goes
// back to the queue, a resolver's waits for the raise.
func (e *Engine) haltPlan(out []phase.Command, p *plan, why string) []phase.Command {
	switch {
	case p.State == phase.Running && p.Stage == phase.StageWork && p.check == phase.CheckNone:
		out = e.interrupt(out, p, why)
		out = e.restart(out, p, why)
	case p.State == phase.Running && p.Stage == phase.StageResolve:
		// Its conflict gets a fresh resolver after the raise: this one
		// stopped for the budget, not for failing.
		out = e.interrupt(out, p, why)
		p.Stage, p.resolverAt = phase.StageHeld, 0
		out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "merge conflict: the resolver is held until the budget is raised"})
	}
	return out
}

// askBudget opens the budget checkpoint: no agent starts until the human
// raises the budget or stops the run.
func (e *Engine) askBudget(out []phase.Command, why string) []phase.Command {
	e.lastCP++
	raise := e.suggestedRaise()
	cp := &phase.Checkpoint{ID: e.lastCP, Plan: phase.BudgetID, Kind: phase.KindBudget, Type: "budget", Standalone: true,
		Details:  why,
		Awaiting: fmt.Sprintf("raise (to %s), raise AMOUNT (e.g. raise %s), or stop", raise, raise),
		Options:  []string{"raise", "stop"}, Raised: e.now}
	e.budget.open = cp
	e.queue = append(e.queue, cp)
	return e.announce(out, cp)
}

// suggestedRaise is what "raise" raises the budget to: half as much again
// as it is, or double what the work still needs when that is more.
func (e *Engine) suggestedRaise() string {
	if e.budget.USD > 0 {
		return fmt.Sprintf("$%.2f", e.budget.USD*1.5)
	}
	return fmt.Sprintf("%d tokens", e.budget.Tokens*3/2)
}

// budgetAnswered applies the answer to the budget checkpoint: stop ends
// the run (what is done stays done); raise lifts the ceilings, and the
// interrupted plans continue.
func (e *Engine) budgetAnswered(ev phase.Event) ([]phase.Command, error) {
	cp := e.budget.open
	if cp == nil {
		return nil, fmt.Errorf("the budget has no open checkpoint")
	}
	old := e.budget.USD
	if old == 0 {
		old = float64(e.budget.Tokens)
	}
	stop, factor, err := work.ReadBudgetAnswer(ev.Text, old)
	if err != nil {
		return nil, err
	}
	var out []phase.Command
	if stop {
		out = e.closeBudget(out, cp, "stop", ev.By)
		return e.abort(out, "stopped at the budget: "+cp.Details), nil
	}
	if factor <= 1 {
		return nil, fmt.Errorf("raise the budget above what it is (%s), or answer stop", e.budgetText())
	}
	e.budget.Ceilings = e.budget.Raised(factor)
	if _, still := e.budget.reached(); still {
		return nil, fmt.Errorf("%s is already spent: raise the budget above it, or answer stop", e.budgetText())
	}
	e.budget.ladder.Raised(e.budget.share())
	out = e.closeBudget(out, cp, "raise to "+e.budgetText(), ev.By)
	out = append(out, phase.Command{Type: phase.CmdNote, Text: "budget raised to " + e.budgetText()})
	return e.unhold(out), nil
}

// budgetText says the ceilings.
func (e *Engine) budgetText() string { return e.budget.Ceilings.String() }

func (e *Engine) closeBudget(out []phase.Command, cp *phase.Checkpoint, answer, by string) []phase.Command {
	if by == "" {
		by = "human"
	}
	cp.Answer, cp.AnsweredBy = answer, by
	e.budget.open = nil
	e.unqueueID(phase.BudgetID)
	if by != byHive {
		e.resolved++
	}
	return append(out, phase.Command{Type: phase.CmdCheckpointClosed, Plan: phase.BudgetID, Checkpoint: copyOf(cp)})
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
	if e.vj.Stage == phase.VerifyHeld {
		out = e.startVerifier(out)
	}
	return out
}

// fit decides the rung p's next agent starts on: the budget's rung, or
// lower while the estimate of p's remaining tasks does not fit what is
// left. ok is false when even the cheapest rung does not fit.
func (e *Engine) fit(p *plan) (rung int, ok bool) {
	b := &e.budget
	rung = b.ladder.Rung
	if len(b.TaskUSD) == 0 || b.USD <= 0 {
		return rung, true
	}
	rung = min(rung, len(b.TaskUSD)-1)
	left := b.USD - b.spent.CostUSD
	tasks := float64(max(1, p.Spec.Tasks-p.TasksDone))
	per := e.perTask()
	for ; rung < len(b.TaskUSD); rung++ {
		if tasks*per*b.TaskUSD[rung]/b.TaskUSD[0] <= left || b.TaskUSD[0] == 0 {
			return rung, true
		}
	}
	return len(b.TaskUSD) - 1, false
}

// perTask is what a task costs on the ladder's top rung: the run's own
// history when plans have completed (each priced back to the top rung),
// else the shell's estimate.
func (e *Engine) perTask() float64 {
	b := &e.budget
	cost, tasks := 0.0, 0
	for _, p := range e.plans {
		if p.State == phase.Complete && !p.Spec.Done && p.Spec.Tasks > 0 && p.CostUSD > 0 {
			scale := 1.0
			if r := min(p.Rung, len(b.TaskUSD)-1); b.TaskUSD[r] > 0 {
				scale = b.TaskUSD[0] / b.TaskUSD[r]
			}
			cost += p.CostUSD * scale
			tasks += p.Spec.Tasks
		}
	}
	if tasks > 0 {
		return cost / float64(tasks)
	}
	return b.TaskUSD[0]
}

// held reports whether p may not start now for the budget, opening the
// budget checkpoint when even the cheapest model would not fit. Otherwise
// it sets the rung p's agent starts on.
func (e *Engine) held(out []phase.Command, p *plan) ([]phase.Command, bool) {
	if e.budget.open != nil || e.waits.Wait != nil {
		return out, true
	}
	rung, ok := e.fit(p)
	if !ok {
		left := e.budget.USD - e.budget.spent.CostUSD
		return e.budgetStop(out, fmt.Sprintf("budget too small for plan %s: about $%.2f needed on the cheapest model, $%.2f left of $%.2f",
			p.Spec.ID, float64(max(1, p.Spec.Tasks-p.TasksDone))*e.perTask()*e.budget.TaskUSD[rung]/e.budget.TaskUSD[0], left, e.budget.USD)), true
	}
	if out = e.holdTurns(out); e.budget.open != nil {
		return out, true
	}
	if rung > e.budget.ladder.Rung && rung != p.Rung {
		out = append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: fmt.Sprintf("budget: $%.2f left; plan %s starts %d model step(s) down to fit", e.budget.USD-e.budget.spent.CostUSD, p.Spec.ID, rung)})
	}
	p.Rung = rung
	return out, false
}

// allotment is what one agent may spend at most: what is left of the
// run's budget, and of its plan's (0: no limit). A one-shot agent gets it
// as its CLI's own ceiling.
func (e *Engine) allotment(p *plan) float64 {
	left := 0.0
	if e.budget.USD > 0 {
		left = max(0.01, e.budget.USD-e.budget.spent.CostUSD)
	}
	if p != nil && e.budget.PlanUSD > 0 {
		pl := max(0.01, e.budget.PlanUSD-p.CostUSD)
		if left == 0 || pl < left {
			left = pl
		}
	}
	return left
}
