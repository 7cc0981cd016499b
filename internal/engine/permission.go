package engine

import (
	"fmt"
	"strings"

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
func (e *Engine) permission(out []phase.Command, p *plan, cp *phase.Checkpoint) []phase.Command {
	cp.Kind, cp.Type = phase.KindPermission, "permission"
	if len(cp.Options) == 0 {
		cp.Options = []string{"allow", "deny", "always"}
	}
	if e.always[cp.Tool] {
		return append(out, allowed(p, cp, "allowed: "+cp.Tool+" is allowed for the rest of the run"))
	}
	if p.State == phase.Waiting {
		p.permissions = append(p.permissions, cp)
		return out
	}
	return e.raise(out, p, cp)
}

// allowed answers cp with allow without asking.
func allowed(p *plan, cp *phase.Checkpoint, why string) phase.Command {
	return phase.Command{Type: phase.CmdPermission, Plan: p.Spec.ID, Attempt: p.Attempt, Text: "allow", Reason: why, Checkpoint: cp.Copy()}
}

// permissionAnswered acts on the answer to p's permission checkpoint cp,
// which applyAnswer has closed.
func (e *Engine) permissionAnswered(out []phase.Command, p *plan, cp *phase.Checkpoint, answer string) []phase.Command {
	choice, message, _ := permissionChoice(answer)
	if choice == "always" {
		if e.always == nil {
			e.always = map[string]bool{}
		}
		e.always[cp.Tool] = true
	}
	if cp.Standalone || !p.agentLive || !e.mayGoOn(p) {
		p.permissions = nil
		// The agent that asked is gone, or may not go on now: a
		// continuation redoes the work (continueWith holds it for the
		// budget), and asks again unless the tool is now always allowed.
		return e.continueWith(out, p, &phase.Continuation{Reason: fmt.Sprintf("continue after the permission answer (%s %s)", choice, cp.Tool)})
	}
	p.State = phase.Running
	p.silence, p.lastActive = phase.Quiet, e.now
	c := phase.Command{Type: phase.CmdPermission, Plan: p.Spec.ID, Attempt: p.Attempt, Text: "allow", Checkpoint: cp.Copy()}
	if choice == "deny" {
		c.Text = "deny"
		c.Reason = "The human denied permission to use " + cp.Tool + " (through hive)."
		if message != "" {
			c.Reason += " They said: " + message
		}
	}
	out = append(out,
		phase.Command{Type: phase.CmdPlanState, Plan: p.Spec.ID, Attempt: p.Attempt, State: phase.Running, Reason: "answered: " + answer},
		c)
	if choice == "always" {
		out = e.allowOpen(out, cp.Tool)
	}
	return e.heldPermissions(out, p)
}

// heldPermissions raises the permission requests that arrived while p
// waited at another checkpoint, now that its agent runs again, in order.
func (e *Engine) heldPermissions(out []phase.Command, p *plan) []phase.Command {
	for len(p.permissions) > 0 && p.State == phase.Running && p.agentLive {
		next := p.permissions[0]
		p.permissions = p.permissions[1:]
		out = e.permission(out, p, next)
	}
	return out
}

// allowOpen answers allow to every other open permission checkpoint for
// tool, now always allowed.
func (e *Engine) allowOpen(out []phase.Command, tool string) []phase.Command {
	for _, q := range e.plans {
		if q.State == phase.Waiting && q.Open != nil && q.Open.Kind == phase.KindPermission && q.Open.Tool == tool && !q.Open.Standalone && q.agentLive {
			out = e.applyAnswer(out, q, "allow", "always")
		}
	}
	return out
}

// permissionChoice reads an answer to a permission checkpoint: allow (yes,
// 1), deny (no, 2) or always (3), then, for deny, what to tell the agent.
func permissionChoice(text string) (choice, message string, ok bool) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return "", "", false
	}
	w := strings.ToLower(strings.TrimRight(f[0], ".,:;!"))
	switch w {
	case "allow", "yes", "y", "1":
		choice = "allow"
	case "deny", "no", "n", "2":
		choice = "deny"
	case "always", "3":
		choice = "always"
	default:
		return "", "", false
	}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), f[0]))
	return choice, rest, true
}
