package engine

import (
	"fmt"

	"github.com/hivectl/hive/internal/engine/checkpoints"
	"github.com/hivectl/hive/internal/engine/plans"
	"github.com/hivectl/hive/internal/phase"
)

// Permission checkpoints: a live agent (Claude Code with
// --permission-prompt-tool stdio) asks before using a tool its rules do not
// allow, and waits mid-turn for the answer, which goes back to the same
// process as a CmdPermission. "always" allows the tool for the rest of the
// run: later requests for it are allowed at once. --yes never answers one.

// permission handles a permission request of p's agent. cp carries Tool,
// RequestID and Input; the plan is running, or waiting at another checkpoint
// (the request is then held until that one is answered).
func (e *Engine) permission(out []phase.Command, p *plans.Plan, cp *phase.Checkpoint) []phase.Command {
	checkpoints.Permission(cp)
	if e.queue.Allowed(cp.Tool) {
		return append(out, phase.Command{Type: phase.CmdPermission, Plan: p.Spec.ID, Attempt: p.Attempt, Text: "allow",
			Reason: "allowed: " + cp.Tool + " is allowed for the rest of the run", Checkpoint: cp.Copy()})
	}
	if p.State == phase.Waiting {
		p.Permissions = append(p.Permissions, cp)
		return out
	}
	return e.raise(out, p, cp)
}

// permissionAnswered acts on the answer to p's permission checkpoint cp,
// which applyAnswer has closed.
func (e *Engine) permissionAnswered(out []phase.Command, p *plans.Plan, cp *phase.Checkpoint, answer string) []phase.Command {
	choice, _, _ := checkpoints.PermissionChoice(answer)
	if choice == "always" {
		e.queue.Allow(cp.Tool)
	}
	if cp.Standalone || !p.AgentLive || !e.mayGoOn(p) {
		p.Permissions = nil
		// The agent that asked is gone, or may not go on now: a
		// continuation redoes the work (continueWith holds it for the
		// budget), and asks again unless the tool is now always allowed.
		return e.continueWith(out, p, &phase.Continuation{Reason: fmt.Sprintf("continue after the permission answer (%s %s)", choice, cp.Tool)})
	}
	p.State = phase.Running
	p.Silence, p.LastActive = phase.Quiet, e.now
	text, reason := checkpoints.Granted(cp, answer)
	out = append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "answered: " + answer},
		phase.Command{Type: phase.CmdPermission, Plan: p.Spec.ID, Attempt: p.Attempt, Text: text, Reason: reason, Checkpoint: cp.Copy()})
	if choice == "always" {
		out = e.allowOpen(out, cp.Tool)
	}
	return e.heldPermissions(out, p)
}

// heldPermissions raises the permission requests that arrived while p
// waited at another checkpoint, now that its agent runs again, in order.
func (e *Engine) heldPermissions(out []phase.Command, p *plans.Plan) []phase.Command {
	for len(p.Permissions) > 0 && p.State == phase.Running && p.AgentLive {
		next := p.Permissions[0]
		p.Permissions = p.Permissions[1:]
		out = e.permission(out, p, next)
	}
	return out
}

// allowOpen answers allow to every other open permission checkpoint for
// tool, now always allowed.
func (e *Engine) allowOpen(out []phase.Command, tool string) []phase.Command {
	for _, q := range e.plans {
		if q.State == phase.Waiting && q.Open != nil && q.Open.Kind == phase.KindPermission && q.Open.Tool == tool && !q.Open.Standalone && q.AgentLive {
			out = e.applyAnswer(out, q, "allow", "always")
		}
	}
	return out
}
