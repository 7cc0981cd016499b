package engine

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/phase"
)

// The phase verification is a job of its own (seed 002): once every plan is
// complete, the must_haves are checked mechanically (CmdVerify); when they
// hold and a verifier role is configured, a verifier agent reviews the phase
// and writes its report; the report's status is read (CmdVerify, After
// "report") and routed: passed and gaps_found end the run, human_needed asks
// a human. The verifier's agent is journaled, watched and resumed like a
// plan's: its events name the plan VerifyID.

// verifyJob is the phase verification's record, with the engine's
// bookkeeping of it.
type verifyJob struct {
	phase.VerifyJob
	seen      phase.SessionCosts
	agentLive bool
	turnEnded bool // the current attempt's turn ended: its report can be read
}

// verifyPending reports whether the phase is to be verified before the run
// finishes: every plan complete, verification asked for and not yet done.
func (e *Engine) verifyPending() bool {
	if !e.spec.Verify || e.aborted || e.verification != nil {
		return false
	}
	for _, p := range e.plans {
		if p.State != phase.Complete {
			return false
		}
	}
	return true
}

// verify starts the verification once; the run waits for it.
func (e *Engine) verify(out []phase.Command) []phase.Command {
	if e.vj.Stage == phase.VerifyNotAsked {
		e.vj.Stage = phase.VerifyChecking
		out = append(out, phase.Command{Type: phase.CmdVerify})
	}
	return out
}

// startVerifier starts a new attempt of the verifier agent, or holds it
// while the budget checkpoint is open (a raise starts it: unhold).
func (e *Engine) startVerifier(out []phase.Command) []phase.Command {
	v := &e.vj
	if out = e.holdTurns(out); e.budget.Open() != nil || e.waits.Wait != nil {
		v.Stage = phase.VerifyHeld
		return out
	}
	v.Stage = phase.VerifyAgent
	v.Attempt++
	v.PID, v.Started = 0, e.now
	v.agentLive, v.turnEnded = true, false
	e.budget.Started(phase.VerifyID, v.Attempt)
	return append(out, phase.Command{Type: phase.CmdStartAgent, Plan: phase.VerifyID, Attempt: v.Attempt, Role: "verifier", MaxUSD: e.budget.Allotment(nil), Fallback: e.waits.FellBack})
}

// stopVerifier ends the verifier's agent if it may still run.
func (e *Engine) stopVerifier(out []phase.Command, kill bool, reason string) []phase.Command {
	v := &e.vj
	if !v.agentLive {
		return out
	}
	v.agentLive = false
	return append(out, phase.Command{Type: phase.CmdStopAgent, Plan: phase.VerifyID, Attempt: v.Attempt, PID: v.PID, Kill: kill, Reason: reason})
}

// verifierEvent handles an event of the verifier's agent.
func (e *Engine) verifierEvent(ev phase.Event) ([]phase.Command, error) {
	v := &e.vj
	var out []phase.Command
	if ev.Type == phase.EvUsage || ev.Type == phase.EvSpend {
		usd, cli := budget.AddTurn(&v.Spend, &v.seen, ev) // tokens count whichever attempt spent them
		out = e.spend(out, nil, ev, usd, cli)
	}
	if ev.Type == phase.EvSpend {
		return out, nil // the turn goes on
	}
	if ev.Attempt != v.Attempt || v.Stage != phase.VerifyAgent {
		return out, nil // an earlier attempt, or the agent's work is over
	}
	switch ev.Type {
	case phase.EvAgentStarted:
		v.PID = ev.PID
	case phase.EvReport:
		v.Report = ev.Report // its report file decides; this is what it said
	case phase.EvUsage:
		// The turn ended: the report is on disk, or it is not.
		v.turnEnded = true
		out = e.stopVerifier(out, false, "")
		out = e.readReport(out)
	case phase.EvPlanFailed:
		out = e.stopVerifier(out, false, "")
		out = e.verifierFailed(out, ev.Reason)
	case phase.EvCheckpoint, phase.EvDeviation:
		// The verifier reads and reports; it has nothing to ask. A live
		// agent's permission request is denied, so that it does not wait.
		if ev.Checkpoint != nil && ev.Checkpoint.Type == "permission" {
			cp := *ev.Checkpoint
			cp.Plan, cp.Attempt, cp.Kind = phase.VerifyID, v.Attempt, phase.KindPermission
			out = append(out, phase.Command{Type: phase.CmdPermission, Plan: phase.VerifyID, Attempt: v.Attempt, Checkpoint: &cp, Text: "deny",
				Reason: "the verifier only reads the phase and writes its report"})
		}
	case phase.EvSilent:
		out = e.stopVerifier(out, true, "the verifier printed nothing for "+ev.Text)
		out = e.verifierFailed(out, "it printed nothing for "+ev.Text)
	case phase.EvAgentExited:
		v.agentLive = false
		if ev.ExitCode == 0 || v.turnEnded {
			out = e.readReport(out) // the disk decides
		} else {
			out = e.verifierFailed(out, exitNote(ev))
		}
	}
	return out, nil
}

// readReport asks for the verifier's report to be read.
func (e *Engine) readReport(out []phase.Command) []phase.Command {
	e.vj.Stage = phase.VerifyReading
	return append(out, phase.Command{Type: phase.CmdVerify, Attempt: e.vj.Attempt, After: "report"})
}

// verifierFailed hands the phase to a human: the verifier did not finish.
func (e *Engine) verifierFailed(out []phase.Command, why string) []phase.Command {
	return e.verificationResult(out, phase.Event{Text: phase.VerifyHumanNeeded,
		Reason: "the verifier did not finish (" + why + "); check the phase by hand"})
}

// verified handles the verification's results and a human's answer to it.
func (e *Engine) verified(ev phase.Event) ([]phase.Command, error) {
	if ev.Type == phase.EvAnswer {
		cp := e.verifyOpen
		if cp == nil {
			return nil, fmt.Errorf("the phase verification has no open checkpoint")
		}
		var status string
		switch strings.ToLower(strings.TrimSpace(ev.Text)) {
		case "approved", "passed", "yes":
			status = phase.VerifyPassed
		case "gaps", "gaps_found", "no":
			status = phase.VerifyGapsFound
		default:
			return nil, fmt.Errorf("the phase verification needs a human: answer approved or gaps, not %q", ev.Text)
		}
		by := ev.By
		if by == "" {
			by = "human"
		}
		cp.Answer, cp.AnsweredBy = status, by
		e.verifyOpen = nil
		e.unqueueID(phase.VerifyID)
		e.resolved++
		e.vj.Stage = phase.VerifyDone
		e.verification = &phase.Verification{Status: status, Details: cp.Details}
		return []phase.Command{{Type: phase.CmdCheckpointClosed, Plan: phase.VerifyID, Checkpoint: cp.Copy()}}, nil
	}
	switch e.vj.Stage {
	case phase.VerifyChecking:
		if ev.Text == phase.VerifyPassed && e.spec.Verifier {
			return e.startVerifier(nil), nil // the must_haves hold: the verifier reviews the rest
		}
		if ev.Text == phase.VerifyPassed && ev.Reason == phase.MechanicalOnly {
			ev.Reason += " (no verifier role configured)"
		}
	case phase.VerifyReading:
	default:
		return nil, fmt.Errorf("verified: no verification was asked for")
	}
	switch ev.Text {
	case phase.VerifyPassed, phase.VerifyGapsFound, phase.VerifyHumanNeeded:
		return e.verificationResult(nil, ev), nil
	}
	return nil, fmt.Errorf("verified: unknown status %q (passed, human_needed or gaps_found)", ev.Text)
}

// verificationResult records the verification's status; human_needed asks
// a human to decide.
func (e *Engine) verificationResult(out []phase.Command, ev phase.Event) []phase.Command {
	if ev.Text != phase.VerifyHumanNeeded {
		e.vj.Stage = phase.VerifyDone
		e.verification = &phase.Verification{Status: ev.Text, Details: ev.Reason}
		return out
	}
	e.vj.Stage = phase.VerifyWaiting
	e.lastCP++
	cp := &phase.Checkpoint{ID: e.lastCP, Plan: phase.VerifyID, Kind: phase.KindVerify, Type: "human-verify", Standalone: true,
		Details:  ev.Reason,
		Awaiting: "test what the verifier lists, then answer approved, or gaps if something is missing",
		Options:  []string{"approved", "gaps"}, Raised: e.now}
	e.verifyOpen = cp
	e.queue = append(e.queue, cp)
	return e.announce(out, cp)
}

// resumeVerify picks the verification up where the previous process left
// it: a check or a report read is asked again, a verifier agent (which may
// have outlived that process) is ended and started afresh, an open
// checkpoint is shown again.
func (e *Engine) resumeVerify(out []phase.Command) []phase.Command {
	v := &e.vj
	switch v.Stage {
	case phase.VerifyChecking:
		out = append(out, phase.Command{Type: phase.CmdVerify})
	case phase.VerifyAgent:
		v.agentLive = true // it may still run: end it by its pid
		out = e.stopVerifier(out, false, "")
		out = e.startVerifier(out)
	case phase.VerifyHeld:
		out = e.startVerifier(out)
	case phase.VerifyReading:
		out = append(out, phase.Command{Type: phase.CmdVerify, Attempt: v.Attempt, After: "report"})
	case phase.VerifyWaiting:
		out = e.announce(out, e.verifyOpen)
	}
	return out
}
