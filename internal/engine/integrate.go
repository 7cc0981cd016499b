package engine

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// merge asks for p's branch to be merged into the integration branch. The
// plan keeps its slot until it is merged (and gated), so a dependent never
// starts from a base without it.
func (e *Engine) merge(out []phase.Command, p *plan) []phase.Command {
	if p.agentLive {
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID})
		p.agentLive = false
	}
	p.Stage = phase.StageMerge
	p.check = phase.CheckNone
	return append(out, phase.Command{Type: phase.CmdMerge, Plan: p.Spec.ID, Attempt: p.Attempt})
}

// integrating handles the events of a plan past its executor's work: the
// merge, a resolver agent's work, the post-merge gate.
func (e *Engine) integrating(p *plan, ev phase.Event) ([]phase.Command, error) {
	var out []phase.Command
	switch ev.Type {
	case phase.EvAgentStarted:
		p.PID = ev.PID
	case phase.EvAgentExited:
		p.agentLive = false
		if p.Stage == phase.StageResolve {
			// The disk decides: a resolver that committed its resolution
			// and ended without saying so still leaves a clean merge.
			if e.rules >= resolverRules {
				// It ended without PLAN COMPLETE (it would have merged
				// then): it was cut off rather than beaten, so a conflict
				// left gets another resolver, as after a resume.
				p.resolverAt = 0
			}
			out = e.merge(out, p)
		}
	case phase.EvPlanComplete:
		if p.Stage == phase.StageResolve {
			out = e.merge(out, p)
		}
	case phase.EvPlanFailed:
		if p.Stage == phase.StageResolve {
			out = e.conflict(out, p, "the resolver gave up: "+ev.Reason)
		}
	case phase.EvReport:
		if p.Stage == phase.StageResolve && ev.Report != nil {
			p.Report = ev.Report
			if ev.Report.Status == work.ReportBlocked || ev.Report.Status == work.ReportNeedsInput {
				out = e.conflict(out, p, "the resolver reported "+ev.Report.Status+": "+firstOf(ev.Report.Blocker, ev.Report.Summary, "no reason given"))
			}
		}
	case phase.EvSilent:
		if p.Stage == phase.StageResolve {
			out = e.silent(out, p, ev)
		}
	case phase.EvCommitsChecked:
		if p.Stage == phase.StageResolve && p.silence == phase.CheckingCommits && !ev.OK {
			p.silence = phase.Stalled
			out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID, Kill: true, Reason: "the resolver stalled"})
		}
	case phase.EvMerged:
		if p.Stage != phase.StageMerge {
			return nil, fmt.Errorf("merged %s: no merge was asked for", p.Spec.ID)
		}
		if ev.OK {
			e.merges++
		}
		switch {
		case ev.OK && e.spec.Gate:
			p.Stage = phase.StageGate
			out = append(out, phase.Command{Type: phase.CmdGate, Plan: p.Spec.ID, Attempt: p.Attempt})
		case ev.OK:
			out = e.settle(out, p, phase.Complete, "")
		case len(ev.Files) > 0:
			p.conflictFiles = append([]string(nil), ev.Files...)
			p.conflictWhere = ev.Reason
			// A resolver gets the conflict, and another one if other plans
			// merged since the last one started (it resolved against an
			// integration branch that has moved), a few times at most.
			fresh := p.resolverAt == 0 || p.resolverAt <= e.merges
			if e.spec.Resolver && fresh && p.Resolves < MaxResolves {
				out = e.resolve(out, p, ev.Files)
			} else {
				out = e.conflict(out, p, "")
			}
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
		p.Stage, p.fix = phase.StageWork, ev.Text
		if p.gateLoops < MaxFixLoops {
			p.gateLoops++
			out = e.continueWith(out, p, &phase.Continuation{
				Reason: fmt.Sprintf("the post-merge gate failed (fix %d of %d)", p.gateLoops, MaxFixLoops),
				Fix:    ev.Text,
			})
			break
		}
		out = e.raise(out, p, &phase.Checkpoint{
			Kind:     phase.KindFailure,
			Type:     "post-merge-gate",
			Details:  fmt.Sprintf("the post-merge gate still fails after %d fix agents: %s", MaxFixLoops, clipLines(ev.Text, 20)),
			Awaiting: "retry (another fix agent), skip (the plan fails; its merged work stays) or abort (the whole run)",
			Options:  []string{"retry", "skip", "abort"},
		})
	}
	return out, nil
}

// MaxResolves is how many resolver agents a plan's merge conflicts get in
// one run before a human is asked, however often the integration branch
// moves under them.
const MaxResolves = 5

// MaxFixLoops is how many fix agents a failing post-merge gate gets before
// a human is asked (seed 003 §3.5).
const MaxFixLoops = 2

// resolverRules is the engine version from which a resolver that ended
// without PLAN COMPLETE is followed by another resolver (see Version).
const resolverRules = 8

// resolve starts a resolver agent (role comb) on p's conflict, unless the
// plan has spent its ceiling (a human resolves it) or the budget checkpoint
// holds every new agent (the plan merges again once it is raised).
func (e *Engine) resolve(out []phase.Command, p *plan, files []string) []phase.Command {
	if spent, over := e.planOver(p); over {
		return e.conflict(out, p, spent)
	}
	if !e.pausing {
		out = e.holdTurns(out)
	}
	if e.budget.Open() != nil || e.pausing || e.waits.Wait != nil {
		// A resume after a pause merges it again (see resume), as the
		// end of a wait for the provider does (limitWake).
		why := "merge conflict: the resolver is held until the budget is raised"
		switch {
		case e.pausing:
			why = "merge conflict: the resolver starts when the run is resumed"
		case e.waits.Wait != nil:
			why = "merge conflict: the resolver starts when the provider's limit has passed"
		}
		p.Stage = phase.StageHeld
		return append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: why})
	}
	p.resolverAt = e.merges + 1
	p.Stage = phase.StageResolve
	e.newAgent(p)
	p.Resolves++
	if p.resolvers == nil {
		p.resolvers = map[int]bool{}
	}
	p.resolvers[p.Attempt] = true
	e.budget.Started(p.Spec.ID, p.Attempt)
	return append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "merge conflict: a resolver agent works on " + strings.Join(files, ", ")},
		phase.Command{Type: phase.CmdStartAgent, Plan: p.Spec.ID, Attempt: p.Attempt, Role: "comb", MaxUSD: e.budget.Allotment(&p.PlanStatus), Fallback: e.waits.FellBack,
			Continuation: &phase.Continuation{Reason: "merge conflict", Conflict: append([]string(nil), files...)}})
}

// conflict asks a human to resolve p's merge conflict by hand.
func (e *Engine) conflict(out []phase.Command, p *plan, why string) []phase.Command {
	if p.agentLive {
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: p.Spec.ID, Attempt: p.Attempt, PID: p.PID})
		p.agentLive = false
	}
	p.Stage = phase.StageWork
	details := "merging " + p.Spec.ID + " conflicts in: " + strings.Join(p.conflictFiles, ", ")
	var notes []string
	for _, n := range []string{p.conflictWhere, why} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		details += " (" + strings.Join(notes, "; ") + ")"
	}
	return e.raise(out, p, &phase.Checkpoint{
		Kind:     phase.KindMerge,
		Type:     "merge-conflict",
		Details:  details,
		Awaiting: "resolve the files by hand in the plan's worktree and commit, then answer done; or abort (the plan fails, its branch is kept)",
		Options:  []string{"done", "abort"},
	})
}

// mergeAnswered acts on the answer to a merge-conflict checkpoint.
func (e *Engine) mergeAnswered(out []phase.Command, p *plan, answer string) []phase.Command {
	if answer == "abort" {
		return e.fail(out, p, "merge conflict left unresolved; the plan's branch is kept")
	}
	p.State = phase.Running
	out = append(out, phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "resolved by hand"})
	return e.merge(out, p)
}

// clipLines keeps the last n lines of s: a failing command's end says most.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
