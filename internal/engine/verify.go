package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/work"
)

// The phase verification is a job of its own (seed 002): once every plan is
// complete, the must_haves are checked mechanically (CmdVerify); when they
// hold and a verifier role is configured, a verifier agent reviews the phase
// and writes its report; the report's status is read (CmdVerify, After
// "report") and routed: passed and gaps_found end the run, human_needed asks
// a human. The verifier's agent is journaled, watched and resumed like a
// plan's: its events name the plan VerifyID.

// VerifyStage is where the phase verification stands.
type VerifyStage string

// Verification stages.
const (
	VerifyNotAsked VerifyStage = ""         // not (yet) asked for
	VerifyChecking VerifyStage = "checking" // the must_haves are checked mechanically
	VerifyAgent    VerifyStage = "agent"    // the verifier agent works
	VerifyHeld     VerifyStage = "held"     // it waits for the budget to be raised
	VerifyReading  VerifyStage = "reading"  // its report is read
	VerifyWaiting  VerifyStage = "waiting"  // a human is asked
	VerifyDone     VerifyStage = "done"     // the result is known
)

// sessionCosts remembers each attempt's session cost already counted: the
// CLIs report a session's running total, so only what is new is added.
type sessionCosts map[int]float64

// add counts a turn's usage of attempt into s and returns the turn's cost
// and what its CLI reported for it.
func addTurn(s *work.Spend, seen *sessionCosts, ev Event) (usd, cli float64) {
	if *seen == nil {
		*seen = sessionCosts{}
	}
	if ev.CostUSD > (*seen)[ev.Attempt] {
		cli = ev.CostUSD - (*seen)[ev.Attempt]
		(*seen)[ev.Attempt] = ev.CostUSD
	}
	usd = cli
	if ev.Priced {
		usd = ev.TurnUSD
	}
	countTurn(s, ev, usd, cli)
	return usd, cli
}

// count adds a turn's tokens and costs.
func countTurn(s *work.Spend, ev Event, usd, cli float64) {
	s.InputTokens += ev.InputTokens
	s.OutputTokens += ev.OutputTokens
	s.CacheReadTokens += ev.CacheReadTokens
	s.CacheWriteTokens += ev.CacheWriteTokens
	s.CostUSD += usd
	s.CLICostUSD += cli
}

// VerifyJob is the phase verification's record.
type VerifyJob struct {
	Stage   VerifyStage
	Attempt int // the verifier agent's current (or last) attempt; 0 before the first
	PID     int
	Started time.Time // when the current attempt started
	work.Spend
	// Report is the verifier's last HIVE_REPORT, if it wrote one.
	Report    *work.Report
	seen      sessionCosts
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
		if p.State != Complete {
			return false
		}
	}
	return true
}

// verify starts the verification once; the run waits for it.
func (e *Engine) verify(out []Command) []Command {
	if e.vj.Stage == VerifyNotAsked {
		e.vj.Stage = VerifyChecking
		out = append(out, Command{Type: CmdVerify})
	}
	return out
}

// startVerifier starts a new attempt of the verifier agent, or holds it
// while the budget checkpoint is open (a raise starts it: unhold).
func (e *Engine) startVerifier(out []Command) []Command {
	v := &e.vj
	if out = e.holdTurns(out); e.budget.open != nil || e.waits.Wait != nil {
		v.Stage = VerifyHeld
		return out
	}
	v.Stage = VerifyAgent
	v.Attempt++
	v.PID, v.Started = 0, e.now
	v.agentLive, v.turnEnded = true, false
	e.budget.turns.Started(VerifyID, v.Attempt)
	return append(out, Command{Type: CmdStartAgent, Plan: VerifyID, Attempt: v.Attempt, Role: "verifier", MaxUSD: e.allotment(nil), Fallback: e.waits.FellBack})
}

// stopVerifier ends the verifier's agent if it may still run.
func (e *Engine) stopVerifier(out []Command, kill bool, reason string) []Command {
	v := &e.vj
	if !v.agentLive {
		return out
	}
	v.agentLive = false
	return append(out, Command{Type: CmdStopAgent, Plan: VerifyID, Attempt: v.Attempt, PID: v.PID, Kill: kill, Reason: reason})
}

// verifierEvent handles an event of the verifier's agent.
func (e *Engine) verifierEvent(ev Event) ([]Command, error) {
	v := &e.vj
	var out []Command
	if ev.Type == EvUsage || ev.Type == EvSpend {
		usd, cli := addTurn(&v.Spend, &v.seen, ev) // tokens count whichever attempt spent them
		out = e.spend(out, nil, ev, usd, cli)
	}
	if ev.Type == EvSpend {
		return out, nil // the turn goes on
	}
	if ev.Attempt != v.Attempt || v.Stage != VerifyAgent {
		return out, nil // an earlier attempt, or the agent's work is over
	}
	switch ev.Type {
	case EvAgentStarted:
		v.PID = ev.PID
	case EvReport:
		v.Report = ev.Report // its report file decides; this is what it said
	case EvUsage:
		// The turn ended: the report is on disk, or it is not.
		v.turnEnded = true
		out = e.stopVerifier(out, false, "")
		out = e.readReport(out)
	case EvPlanFailed:
		out = e.stopVerifier(out, false, "")
		out = e.verifierFailed(out, ev.Reason)
	case EvCheckpoint, EvDeviation:
		// The verifier reads and reports; it has nothing to ask. A live
		// agent's permission request is denied, so that it does not wait.
		if ev.Checkpoint != nil && ev.Checkpoint.Type == "permission" {
			cp := *ev.Checkpoint
			cp.Plan, cp.Attempt, cp.Kind = VerifyID, v.Attempt, KindPermission
			out = append(out, Command{Type: CmdPermission, Plan: VerifyID, Attempt: v.Attempt, Checkpoint: &cp, Text: "deny",
				Reason: "the verifier only reads the phase and writes its report"})
		}
	case EvSilent:
		out = e.stopVerifier(out, true, "the verifier printed nothing for "+ev.Text)
		out = e.verifierFailed(out, "it printed nothing for "+ev.Text)
	case EvAgentExited:
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
func (e *Engine) readReport(out []Command) []Command {
	e.vj.Stage = VerifyReading
	return append(out, Command{Type: CmdVerify, Attempt: e.vj.Attempt, After: "report"})
}

// verifierFailed hands the phase to a human: the verifier did not finish.
func (e *Engine) verifierFailed(out []Command, why string) []Command {
	return e.verificationResult(out, Event{Text: VerifyHumanNeeded,
		Reason: "the verifier did not finish (" + why + "); check the phase by hand"})
}

// verified handles the verification's results and a human's answer to it.
func (e *Engine) verified(ev Event) ([]Command, error) {
	if ev.Type == EvAnswer {
		cp := e.verifyOpen
		if cp == nil {
			return nil, fmt.Errorf("the phase verification has no open checkpoint")
		}
		var status string
		switch strings.ToLower(strings.TrimSpace(ev.Text)) {
		case "approved", "passed", "yes":
			status = VerifyPassed
		case "gaps", "gaps_found", "no":
			status = VerifyGapsFound
		default:
			return nil, fmt.Errorf("the phase verification needs a human: answer approved or gaps, not %q", ev.Text)
		}
		by := ev.By
		if by == "" {
			by = "human"
		}
		cp.Answer, cp.AnsweredBy = status, by
		e.verifyOpen = nil
		e.unqueueID(VerifyID)
		e.resolved++
		e.vj.Stage = VerifyDone
		e.verification = &Verification{Status: status, Details: cp.Details}
		return []Command{{Type: CmdCheckpointClosed, Plan: VerifyID, Checkpoint: copyOf(cp)}}, nil
	}
	switch e.vj.Stage {
	case VerifyChecking:
		if ev.Text == VerifyPassed && e.spec.Verifier {
			return e.startVerifier(nil), nil // the must_haves hold: the verifier reviews the rest
		}
		if ev.Text == VerifyPassed && ev.Reason == MechanicalOnly {
			ev.Reason += " (no verifier role configured)"
		}
	case VerifyReading:
	default:
		return nil, fmt.Errorf("verified: no verification was asked for")
	}
	switch ev.Text {
	case VerifyPassed, VerifyGapsFound, VerifyHumanNeeded:
		return e.verificationResult(nil, ev), nil
	}
	return nil, fmt.Errorf("verified: unknown status %q (passed, human_needed or gaps_found)", ev.Text)
}

// MechanicalOnly is the details of a verification that found every
// must_have by its mechanical checks.
const MechanicalOnly = "every must_have checked mechanically"

// verificationResult records the verification's status; human_needed asks
// a human to decide.
func (e *Engine) verificationResult(out []Command, ev Event) []Command {
	if ev.Text != VerifyHumanNeeded {
		e.vj.Stage = VerifyDone
		e.verification = &Verification{Status: ev.Text, Details: ev.Reason}
		return out
	}
	e.vj.Stage = VerifyWaiting
	e.lastCP++
	cp := &Checkpoint{ID: e.lastCP, Plan: VerifyID, Kind: KindVerify, Type: "human-verify", Standalone: true,
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
func (e *Engine) resumeVerify(out []Command) []Command {
	v := &e.vj
	switch v.Stage {
	case VerifyChecking:
		out = append(out, Command{Type: CmdVerify})
	case VerifyAgent:
		v.agentLive = true // it may still run: end it by its pid
		out = e.stopVerifier(out, false, "")
		out = e.startVerifier(out)
	case VerifyHeld:
		out = e.startVerifier(out)
	case VerifyReading:
		out = append(out, Command{Type: CmdVerify, Attempt: v.Attempt, After: "report"})
	case VerifyWaiting:
		out = e.announce(out, e.verifyOpen)
	}
	return out
}
