package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// raise makes p wait at cp: it joins the queue and is answered automatically
// when the run is unattended and the answer is one a machine may give.
func (e *Engine) raise(out []phase.Command, p *plans.Plan, cp *phase.Checkpoint) []phase.Command {
	e.queue.Add(cp)
	checkpoints.Raised(cp, p.Spec, p.Attempt, p.TasksDone, e.now, !e.spec.Team || !p.AgentLive, p.AgentLive)
	p.State, p.Open = phase.Waiting, cp
	p.Check = phase.CheckNone
	out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Waiting, Reason: cp.Kind + ": " + cp.Type})
	out = e.announce(out, cp)
	if answer, ok := checkpoints.Auto(cp, p.HumanRetried); ok && e.spec.AutoAnswer {
		return e.applyAnswer(out, p, answer, "auto")
	}
	return out
}

// ask gives cp, a checkpoint of the run's, its id, queues it for a human
// and shows it.
func (e *Engine) ask(out []phase.Command, cp *phase.Checkpoint) []phase.Command {
	e.queue.Add(cp)
	return e.announce(out, cp)
}

// announce shows an open checkpoint, and says when an unattended run cannot
// answer it.
func (e *Engine) announce(out []phase.Command, cp *phase.Checkpoint) []phase.Command {
	out = append(out, phase.Command{Type: phase.CmdCheckpointOpened, Plan: cp.Plan, Attempt: cp.Attempt, Checkpoint: cp.Copy()})
	if e.spec.AutoAnswer && !checkpoints.Answerable(cp) {
		e.human.NeedHuman()
		out = append(out, phase.Command{Type: phase.CmdNeedHuman, Plan: cp.Plan, Checkpoint: cp.Copy()})
	}
	return out
}

// answer applies a human's answer to p's open checkpoint.
func (e *Engine) answer(p *plans.Plan, ev phase.Event) ([]phase.Command, error) {
	cp := p.Open
	if p.State != phase.Waiting {
		cp = nil
	}
	text, err := checkpoints.Read(cp, p.Spec.ID, ev)
	if err != nil {
		return nil, err
	}
	by := ev.By
	if by == "" {
		by = "human"
	}
	return e.applyAnswer(nil, p, text, by), nil
}

// applyAnswer closes p's open checkpoint with answer and acts on it.
func (e *Engine) applyAnswer(out []phase.Command, p *plans.Plan, answer, by string) []phase.Command {
	cp := p.Open
	cp.Answer, cp.AnsweredBy = answer, by
	p.Open = nil
	e.queue.Remove(p.Spec.ID)
	out = append(out, phase.Command{Type: phase.CmdCheckpointClosed, Plan: p.Spec.ID, Attempt: p.Attempt, Checkpoint: cp.Copy()})
	if cp.Kind != phase.KindFailure {
		e.queue.Resolve()
		p.Resolved++
	}
	if cp.Kind == phase.KindFailure {
		choice, _ := checkpoints.FailureChoice(answer)
		switch choice {
		case "retry":
			if by == "auto" {
				p.HumanRetried = true
			}
			p.PastCeiling = true // the answer is the say a plan over its ceiling needs
			return e.continueWith(out, p, &phase.Continuation{Reason: "retry after: " + cp.Details})
		case "skip":
			return e.fail(out, p, cp.Details)
		default:
			out = e.settle(out, p, phase.Failed, cp.Details+"; the run was aborted")
			return e.abort(out, fmt.Sprintf("aborted at the failure of %s", p.Spec.ID))
		}
	}
	if cp.Kind == phase.KindPermission {
		return e.permissionAnswered(out, p, cp, answer)
	}
	if cp.Kind == phase.KindMerge {
		return e.mergeAnswered(out, p, answer)
	}
	p.LastAnswered = cp
	p.Answered = append(p.Answered, *cp.Copy())
	if !cp.Standalone && p.AgentLive && p.Roll.AtAnswer {
		return e.rollover(out, p, &phase.Continuation{Checkpoint: cp.Copy()})
	}
	if !cp.Standalone && p.AgentLive && e.mayGoOn(p) {
		p.State = phase.Running
		p.Silence, p.LastActive = phase.Quiet, e.now
		if e.budget.AnswerWaits(e.rules, p.Spec.ID, p.Attempt) {
			// It asked before its turn's result came: the answer waits for
			// that, so that the next turn is weighed against what this one
			// cost, and the agent has one turn in flight, not two.
			p.AnswerAtTurnEnd = cp.Copy()
			return append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "answered: " + answer + " (sent when its turn ends)"})
		}
		out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "answered: " + answer})
		return e.sendAnswer(out, p, cp)
	}
	// The agent is gone, or may not go on with the answer now: the
	// continuation carries it, and continueWith holds it for the budget.
	return e.continueWith(out, p, &phase.Continuation{Checkpoint: cp.Copy(), Reason: "continue after the answer"})
}

// sendAnswer sends cp's answer to p's live agent, which sets it working
// again.
func (e *Engine) sendAnswer(out []phase.Command, p *plans.Plan, cp *phase.Checkpoint) []phase.Command {
	msg := phase.MsgCheckpointResponse
	if cp.Kind == phase.KindDeviation {
		msg = phase.MsgDeviationResponse
	}
	e.budget.Started(p.Spec.ID, p.Attempt)
	out = append(out, phase.Command{Type: phase.CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: msg, Text: cp.Answer})
	return e.heldPermissions(out, p)
}

// turnEnded sends the answer that waited for p's agent's turn to end, if
// the budget still lets it go on; else a fresh session takes it when the
// budget allows (continueWith holds it).
func (e *Engine) turnEnded(out []phase.Command, p *plans.Plan) []phase.Command {
	cp := p.AnswerAtTurnEnd
	if cp == nil || e.budget.Turning(p.Spec.ID, p.Attempt) {
		return out
	}
	p.AnswerAtTurnEnd = nil
	if p.State != phase.Running || !p.AgentLive {
		return out
	}
	if e.mayGoOn(p) {
		return e.sendAnswer(out, p, cp)
	}
	return e.continueWith(out, p, &phase.Continuation{Checkpoint: cp, Reason: "continue after the answer"})
}

// mayGoOn reports whether p's live agent may be told to go on: not while
// the budget checkpoint is open (it would work past the run's ceiling),
// nor while less than a turn is left of the budget (its next turn could
// pass it), nor when the plan has spent its own.
func (e *Engine) mayGoOn(p *plans.Plan) bool {
	_, over := e.planOver(p)
	_, short := e.turnShort()
	return e.budget.Open() == nil && !short && !over
}

// continueWith replaces p's agent with a continuation agent at once: p holds
// its slot throughout, so no other plan is overtaken.
func (e *Engine) continueWith(out []phase.Command, p *plans.Plan, c *phase.Continuation) []phase.Command {
	if c.Fix == "" {
		c.Fix = p.Integ.Fix() // the gate's failure is still to be fixed
	}
	if spent, over := e.planOver(p); over {
		return e.planFailed(out, p, spent)
	}
	if e.pause.Pausing() && p.State != phase.Pending {
		return e.park(out, p, c, "paused until the run is resumed")
	}
	out = e.holdTurns(out)
	if e.waits.Wait != nil && p.State != phase.Pending {
		return e.park(out, p, c, "held until the provider's limit has passed")
	}
	if e.budget.Open() != nil && p.State != phase.Pending {
		// The budget holds every new agent: the plan waits in the queue
		// with its continuation until the budget is raised. Its agent (at
		// a checkpoint, or asking a permission mid-turn) must not go on.
		return e.park(out, p, c, "held until the budget is raised")
	}
	out = p.End(out)
	if p.State == phase.Pending {
		e.running++
	}
	p.State = phase.Running
	p.NewAgent(e.now)
	p.Permissions = nil // asked by the agent being replaced
	return append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: c.Reason},
		e.startAgent(p, "", checkpoints.WithAnswers(c, p.Answered, p.Notes)))
}

// park puts p back in the queue with continuation c for its next agent,
// which starts when nothing holds it any more (a raise of the budget, a
// resume after a pause). Its agent, if any, must not go on.
func (e *Engine) park(out []phase.Command, p *plans.Plan, c *phase.Continuation, why string) []phase.Command {
	out = p.Interrupt(out, why)
	p.State, p.Check, p.AgentLive, p.Continuation = phase.Pending, phase.CheckNone, false, c
	e.running--
	e.graph.Enqueue(p.Pos)
	return append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, State: phase.Pending, Reason: why})
}

// failing handles a plan that did not finish: an agent that crashed or hung
// is replaced by a continuation up to Retries times; otherwise the human
// decides between retry, skip and abort (seed 000 §2.7).
func (e *Engine) failing(out []phase.Command, p *plans.Plan, reason string, crashed bool) []phase.Command {
	out = p.End(out)
	if crashed && p.AutoRetries < e.spec.Retries {
		p.AutoRetries++
		return e.continueWith(out, p, &phase.Continuation{Reason: fmt.Sprintf("retry %d of %d after: %s", p.AutoRetries, e.spec.Retries, reason)})
	}
	return e.raise(out, p, checkpoints.Failure(reason))
}

// abort ends the run: running agents are interrupted (nothing they would
// still do counts) and every plan not yet final is skipped.
func (e *Engine) abort(out []phase.Command, reason string) []phase.Command {
	e.aborted = true
	for _, p := range e.plans {
		if !p.State.Final() {
			out = p.Interrupt(out, reason)
			out = e.settle(out, p, phase.Skipped, reason)
		}
	}
	return out
}

func (e *Engine) outcome() string {
	if e.aborted {
		return phase.OutcomeAborted
	}
	return plans.Outcome(e.plans, e.vj.Result())
}
