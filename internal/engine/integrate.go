package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/integrate"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// merge asks for p's branch to be merged into the integration branch. The
// plan keeps its slot until it is merged (and gated), so a dependent never
// starts from a base without it.
func (e *Engine) merge(out []phase.Command, p *plans.Plan) []phase.Command {
	out = p.End(out)
	p.Stage = phase.StageMerge
	p.Check = phase.CheckNone
	return append(out, phase.Command{Type: phase.CmdMerge, Plan: p.Spec.ID, Attempt: p.Attempt})
}

// integrating handles the events of a plan past its executor's work: the
// merge, a resolver agent's work, the post-merge gate (package integrate).
func (e *Engine) integrating(p *plans.Plan, ev phase.Event) ([]phase.Command, error) {
	var out []phase.Command
	resolving := p.Stage == phase.StageResolve
	switch ev.Type {
	case phase.EvAgentStarted:
		p.PID = ev.PID
	case phase.EvAgentExited:
		p.AgentLive = false
		if resolving {
			// The disk decides: a resolver that committed its resolution
			// and ended without saying so still leaves a clean merge.
			p.Integ.ResolverEnded(e.rules)
			out = e.merge(out, p)
		}
	case phase.EvPlanComplete:
		if resolving {
			out = e.merge(out, p)
		}
	case phase.EvPlanFailed:
		if resolving {
			out = e.conflict(out, p, "the resolver gave up: "+ev.Reason)
		}
	case phase.EvReport:
		if resolving && ev.Report != nil {
			p.Report = ev.Report
			if why, blocked := integrate.Blocked(ev.Report); blocked {
				out = e.conflict(out, p, why)
			}
		}
	case phase.EvSilent:
		if resolving {
			out = p.Silent(out, e.spec.Team, ev)
		}
	case phase.EvCommitsChecked:
		if resolving {
			out = p.CommitsChecked(out, ev.OK, e.now, "the resolver")
		}
	case phase.EvMerged:
		if p.Stage != phase.StageMerge {
			return nil, fmt.Errorf("merged %s: no merge was asked for", p.Spec.ID)
		}
		switch e.branch.Merged(&p.Integ, ev, e.spec.Gate, e.spec.Resolver, p.Resolves) {
		case integrate.Gate:
			p.Stage = phase.StageGate
			out = append(out, phase.Command{Type: phase.CmdGate, Plan: p.Spec.ID, Attempt: p.Attempt})
		case integrate.Complete:
			out = e.settle(out, p, phase.Complete, "")
		case integrate.Resolve:
			out = e.resolve(out, p)
		case integrate.Conflict:
			out = e.conflict(out, p, "")
		default:
			p.Stage = phase.StageWork
			out = e.failing(out, p, "merge failed: "+ev.Reason, false)
		}
	case phase.EvGateChecked:
		if p.Stage != phase.StageGate {
			return nil, fmt.Errorf("gate-checked %s: no gate was asked for", p.Spec.ID)
		}
		if ev.OK {
			out = e.settle(out, p, phase.Complete, "")
			break
		}
		p.Stage = phase.StageWork
		if fix, cp := p.Integ.GateFailed(ev.Text); fix != nil {
			out = e.continueWith(out, p, fix)
		} else {
			out = e.raise(out, p, cp)
		}
	}
	return out, nil
}

// resolve starts a resolver agent (role comb) on p's conflict, unless the
// plan has spent its ceiling (a human resolves it) or the budget checkpoint
// holds every new agent (the plan merges again once it is raised).
func (e *Engine) resolve(out []phase.Command, p *plans.Plan) []phase.Command {
	if spent, over := e.planOver(p); over {
		return e.conflict(out, p, spent)
	}
	pausing := e.pause.Pausing()
	if !pausing {
		out = e.holdTurns(out)
	}
	if e.budget.Open() != nil || pausing || e.waits.Wait != nil {
		// A resume after a pause merges it again (see resume), as the
		// end of a wait for the provider does (limitWake).
		p.Stage = phase.StageHeld
		return append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: integrate.Held(pausing, e.waits.Wait != nil)})
	}
	p.Stage = phase.StageResolve
	p.NewAgent(e.now)
	p.Resolves++
	c := e.branch.Resolving(&p.Integ, p.Attempt)
	e.budget.Started(p.Spec.ID, p.Attempt)
	return append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: p.Integ.Working()},
		phase.Command{Type: phase.CmdStartAgent, Plan: p.Spec.ID, Attempt: p.Attempt, Role: "comb", MaxUSD: e.budget.Allotment(&p.PlanStatus), Fallback: e.waits.FellBack, Continuation: c})
}

// conflict asks a human to resolve p's merge conflict by hand.
func (e *Engine) conflict(out []phase.Command, p *plans.Plan, why string) []phase.Command {
	out = p.End(out)
	p.Stage = phase.StageWork
	return e.raise(out, p, p.Integ.ConflictCheckpoint(p.Spec.ID, why))
}

// mergeAnswered acts on the answer to a merge-conflict checkpoint.
func (e *Engine) mergeAnswered(out []phase.Command, p *plans.Plan, answer string) []phase.Command {
	if answer == "abort" {
		return e.fail(out, p, "merge conflict left unresolved; the plan's branch is kept")
	}
	p.State = phase.Running
	out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "resolved by hand"})
	return e.merge(out, p)
}
