package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/engine/budget"
	"github.com/hivectl/hive/internal/phase"
)

// Host is what the verification needs of the engine that owns it.
type Host interface {
	// Now is the time of the event being applied.
	Now() time.Time
	// Start starts the verifier agent's attempt, whose first turn is in
	// flight from now, unless a new agent must wait (ok false): for the
	// budget (which it may ask the human to raise first, when less than
	// a turn is left), or for the provider's limit to pass.
	Start(out []phase.Command, attempt int) (_ []phase.Command, ok bool)
	// Spend counts a turn's usage of the verifier into the run's, and
	// applies the budget.
	Spend(out []phase.Command, ev phase.Event, usd, cli float64) []phase.Command
	// Ask gives cp its id, queues it for a human and shows it.
	Ask(out []phase.Command, cp *phase.Checkpoint) []phase.Command
	// Announce shows an open checkpoint again.
	Announce(out []phase.Command, cp *phase.Checkpoint) []phase.Command
	// Answered takes the answered cp out of the queue.
	Answered(cp *phase.Checkpoint)
}

// Job is the phase verification's record, with its bookkeeping.
type Job struct {
	phase.VerifyJob
	seen      phase.SessionCosts
	agentLive bool
	turnEnded bool // the current attempt's turn ended: its report can be read
	// result is the verification's result, once known; open its
	// checkpoint while a human is asked.
	result *phase.Verification
	open   *phase.Checkpoint
}

// Result is the verification's result, once known.
func (j *Job) Result() *phase.Verification { return j.result }

// Begin starts the verification once (the run waits for it): the
// must_haves are checked.
func (j *Job) Begin(out []phase.Command) []phase.Command {
	if j.Stage == phase.VerifyNotAsked {
		j.Stage = phase.VerifyChecking
		out = append(out, phase.Command{Type: phase.CmdVerify})
	}
	return out
}

// start starts a new attempt of the verifier agent, or holds it while the
// budget or a provider's limit holds every new agent (Unhold starts it).
func (j *Job) start(h Host, out []phase.Command) []phase.Command {
	out, ok := h.Start(out, j.Attempt+1)
	if !ok {
		j.Stage = phase.VerifyHeld
		return out
	}
	j.Stage = phase.VerifyAgent
	j.Attempt++
	j.PID, j.Started = 0, h.Now()
	j.agentLive, j.turnEnded = true, false
	return out
}

// stop ends the verifier's agent if it may still run.
func (j *Job) stop(out []phase.Command, kill bool, reason string) []phase.Command {
	if !j.agentLive {
		return out
	}
	j.agentLive = false
	return append(out, phase.Command{Type: phase.CmdStopAgent, Plan: phase.VerifyID, Attempt: j.Attempt, PID: j.PID, Kill: kill, Reason: reason})
}

// Working reports whether attempt is the verifier agent at work now.
func (j *Job) Working(attempt int) bool {
	return attempt == j.Attempt && j.Stage == phase.VerifyAgent
}

// Halt interrupts the verifier agent at work for why (the budget); it
// waits for the raise (Unhold).
func (j *Job) Halt(out []phase.Command, why string) []phase.Command {
	if j.Stage != phase.VerifyAgent {
		return out
	}
	if j.agentLive {
		out = append(out, phase.Command{Type: phase.CmdStopAgent, Plan: phase.VerifyID, Attempt: j.Attempt, PID: j.PID, Interrupt: true, Reason: why})
		j.agentLive = false
	}
	j.Stage = phase.VerifyHeld
	return out
}

// Unhold starts afresh the verifier that the budget or a limit held.
func (j *Job) Unhold(h Host, out []phase.Command) []phase.Command {
	if j.Stage == phase.VerifyHeld {
		out = j.start(h, out)
	}
	return out
}

// Event handles an event of the verifier's agent.
func (j *Job) Event(h Host, ev phase.Event) []phase.Command {
	var out []phase.Command
	if ev.Type == phase.EvUsage || ev.Type == phase.EvSpend {
		usd, cli := budget.AddTurn(&j.Spend, &j.seen, ev) // tokens count whichever attempt spent them
		out = h.Spend(out, ev, usd, cli)
	}
	if ev.Type == phase.EvSpend {
		return out // the turn goes on
	}
	if !j.Working(ev.Attempt) {
		return out // an earlier attempt, or the agent's work is over
	}
	switch ev.Type {
	case phase.EvAgentStarted:
		j.PID = ev.PID
	case phase.EvReport:
		j.Report = ev.Report // its report file decides; this is what it said
	case phase.EvUsage:
		// The turn ended: the report is on disk, or it is not.
		j.turnEnded = true
		out = j.stop(out, false, "")
		out = j.readReport(out)
	case phase.EvPlanFailed:
		out = j.stop(out, false, "")
		out = j.failed(h, out, ev.Reason)
	case phase.EvCheckpoint, phase.EvDeviation:
		// The verifier reads and reports; it has nothing to ask. A live
		// agent's permission request is denied, so that it does not wait.
		if ev.Checkpoint != nil && ev.Checkpoint.Type == "permission" {
			cp := *ev.Checkpoint
			cp.Plan, cp.Attempt, cp.Kind = phase.VerifyID, j.Attempt, phase.KindPermission
			out = append(out, phase.Command{Type: phase.CmdPermission, Plan: phase.VerifyID, Attempt: j.Attempt, Checkpoint: &cp, Text: "deny",
				Reason: "the verifier only reads the phase and writes its report"})
		}
	case phase.EvSilent:
		out = j.stop(out, true, "the verifier printed nothing for "+ev.Text)
		out = j.failed(h, out, "it printed nothing for "+ev.Text)
	case phase.EvAgentExited:
		j.agentLive = false
		if ev.ExitCode == 0 || j.turnEnded {
			out = j.readReport(out) // the disk decides
		} else {
			out = j.failed(h, out, ev.ExitNote())
		}
	}
	return out
}

// readReport asks for the verifier's report to be read.
func (j *Job) readReport(out []phase.Command) []phase.Command {
	j.Stage = phase.VerifyReading
	return append(out, phase.Command{Type: phase.CmdVerify, Attempt: j.Attempt, After: "report"})
}

// failed hands the phase to a human: the verifier did not finish.
func (j *Job) failed(h Host, out []phase.Command, why string) []phase.Command {
	return j.conclude(h, out, phase.Event{Text: phase.VerifyHumanNeeded,
		Reason: "the verifier did not finish (" + why + "); check the phase by hand"})
}

// Verified handles the verification's results (EvVerified) and a human's
// answer to it (EvAnswer). verifier says a verifier role reviews the
// phase once its must_haves hold.
func (j *Job) Verified(h Host, ev phase.Event, verifier bool) ([]phase.Command, error) {
	if ev.Type == phase.EvAnswer {
		cp := j.open
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
		j.open = nil
		h.Answered(cp)
		j.Stage = phase.VerifyDone
		j.result = &phase.Verification{Status: status, Details: cp.Details}
		return []phase.Command{{Type: phase.CmdCheckpointClosed, Plan: phase.VerifyID, Checkpoint: cp.Copy()}}, nil
	}
	switch j.Stage {
	case phase.VerifyChecking:
		if ev.Text == phase.VerifyPassed && verifier {
			return j.start(h, nil), nil // the must_haves hold: the verifier reviews the rest
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
		return j.conclude(h, nil, ev), nil
	}
	return nil, fmt.Errorf("verified: unknown status %q (passed, human_needed or gaps_found)", ev.Text)
}

// conclude records the verification's status; human_needed asks a human
// to decide.
func (j *Job) conclude(h Host, out []phase.Command, ev phase.Event) []phase.Command {
	if ev.Text != phase.VerifyHumanNeeded {
		j.Stage = phase.VerifyDone
		j.result = &phase.Verification{Status: ev.Text, Details: ev.Reason}
		return out
	}
	j.Stage = phase.VerifyWaiting
	j.open = &phase.Checkpoint{Plan: phase.VerifyID, Kind: phase.KindVerify, Type: "human-verify", Standalone: true,
		Details:  ev.Reason,
		Awaiting: "test what the verifier lists, then answer approved, or gaps if something is missing",
		Options:  []string{"approved", "gaps"}, Raised: h.Now()}
	return h.Ask(out, j.open)
}

// Resume picks the verification up where the previous process left it: a
// check or a report read is asked again, a verifier agent (which may have
// outlived that process) is ended and started afresh, an open checkpoint
// is shown again.
func (j *Job) Resume(h Host, out []phase.Command) []phase.Command {
	switch j.Stage {
	case phase.VerifyChecking:
		out = append(out, phase.Command{Type: phase.CmdVerify})
	case phase.VerifyAgent:
		j.agentLive = true // it may still run: end it by its pid
		out = j.stop(out, false, "")
		out = j.start(h, out)
	case phase.VerifyHeld:
		out = j.start(h, out)
	case phase.VerifyReading:
		out = append(out, phase.Command{Type: phase.CmdVerify, Attempt: j.Attempt, After: "report"})
	case phase.VerifyWaiting:
		out = h.Announce(out, j.open)
	}
	return out
}

// Record is the verification as plain data, for the engine's export: the
// job, its result and its open checkpoint.
func (j *Job) Record() (phase.VerifyState, *phase.Verification, *phase.Checkpoint) {
	s := phase.VerifyState{VerifyJob: j.VerifyJob, Seen: j.seen, AgentLive: j.agentLive, TurnEnded: j.turnEnded}
	var open *phase.Checkpoint
	if j.open != nil {
		open = j.open.Copy()
	}
	return s, j.result, open
}

// Restore is the verification that Record gave.
func Restore(s phase.VerifyState, result *phase.Verification, open *phase.Checkpoint) Job {
	return Job{VerifyJob: s.VerifyJob, seen: s.Seen, agentLive: s.AgentLive, turnEnded: s.TurnEnded, result: result, open: open}
}

// Open is the verification's checkpoint while a human is asked.
func (j *Job) Open() *phase.Checkpoint { return j.open }
