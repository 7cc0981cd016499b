package engine

import "github.com/hivectl/hive/internal/phase"

// toolCall applies the loop guard to one tool call of p's agent.
func (e *Engine) toolCall(out []phase.Command, p *plan, ev phase.Event) []phase.Command {
	p.silence, p.lastActive = phase.Quiet, e.now
	tell, stop := p.guard.Call(e.spec.Guard, ev.Tool, ev.Text, "report PLAN FAILED with what blocks you")
	switch {
	case stop != "":
		return e.loopStop(out, p, stop)
	case tell != "":
		return e.loopTell(out, p, tell)
	}
	return out
}

// loopTell tells a live agent what the guard saw; an agent that cannot be
// told (a one-shot session) is noted, and the next step interrupts it.
func (e *Engine) loopTell(out []phase.Command, p *plan, text string) []phase.Command {
	if e.spec.Team && p.agentLive {
		return append(out, phase.Command{Type: phase.CmdSend, Plan: p.Spec.ID, Attempt: p.Attempt, Message: phase.MsgLoop, Text: text})
	}
	return append(out, phase.Command{Type: phase.CmdNote, Plan: p.Spec.ID, Text: "loop guard: " + text})
}

// loopStop interrupts the agent and hands its plan to the human.
func (e *Engine) loopStop(out []phase.Command, p *plan, why string) []phase.Command {
	out = e.interrupt(out, p, why)
	return e.failing(out, p, why, false)
}
