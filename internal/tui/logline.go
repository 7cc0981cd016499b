package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
)

// The log pane says what the plain output says, one line per event, so
// that both read alike.

// ResumedText says where a resumed run stands. "To do" counts the plans
// not yet final, those waiting for an answer among them; plans complete
// before the run are complete, not to do.
func ResumedText(run journal.Run, s phase.Snapshot) string {
	todo := len(s.Plans) - s.Count(phase.Complete) - s.Count(phase.Failed) - s.Count(phase.Skipped)
	waiting := ""
	if n := s.Count(phase.Waiting); n > 0 {
		waiting = fmt.Sprintf(" (%d waiting for an answer)", n)
	}
	return fmt.Sprintf("resuming run %d of phase %s: %d complete, %d failed, %d skipped, %d to do%s; %s of work so far",
		run.ID, s.Phase, s.Count(phase.Complete), s.Count(phase.Failed), s.Count(phase.Skipped), todo, waiting,
		s.Active.Round(time.Second))
}

// EventLine is the log line of an event; false for events not worth one.
func EventLine(ev phase.Event) (LogLine, bool) {
	l := LogLine{Time: ev.Time, Plan: ev.Plan}
	switch ev.Type {
	case phase.EvRunStarted:
		l.Text = fmt.Sprintf("phase %s: %d plan(s), up to %d agent(s)", ev.Spec.Phase, len(ev.Spec.Plans), ev.Spec.MaxConcurrent)
	case phase.EvResumed:
		l.Text = "resumed: plans that were running start again"
	case phase.EvAgentStarted:
		l.Text = fmt.Sprintf("agent started (attempt %d, pid %d)", ev.Attempt, ev.PID)
	case phase.EvProgress:
		l.Text = fmt.Sprintf("PROGRESS %d/%d: %s", ev.Task, ev.Total, ev.Text)
	case phase.EvPlanComplete:
		l.Text = fmt.Sprintf("reported PLAN COMPLETE (%d commit(s))", len(ev.Commits))
	case phase.EvPlanFailed:
		l.Text = "reported PLAN FAILED: " + ev.Reason
	case phase.EvLimited:
		l.Text = fmt.Sprintf("the provider's %s limit ended the turn: %s", ev.Limit.Kind, ev.Limit.Text)
	case phase.EvAgentExited:
		l.Text = fmt.Sprintf("agent exited (attempt %d, code %d: %s)", ev.Attempt, ev.ExitCode, ev.Reason)
	case phase.EvSpotChecked:
		l.Text = "spot-check passed"
		if !ev.OK {
			l.Text = "spot-check failed: " + ev.Reason
		}
	case phase.EvCheckpoint, phase.EvDeviation:
		if ev.Checkpoint == nil {
			return l, false
		}
		l.Text = strings.ToUpper(string(ev.Type)) + ": " + ev.Checkpoint.Type
	case phase.EvAnswer:
		l.Text = fmt.Sprintf("answer from %s: %s", ev.By, ev.Text)
	case phase.EvSilent:
		l.Text = "silent for " + ev.Text
	default:
		return l, false
	}
	return l, true
}

// CommandLine is the log line of a command, at time now; false for
// commands not worth one.
func CommandLine(c phase.Command, now time.Time) (LogLine, bool) {
	l := LogLine{Time: now, Plan: c.Plan}
	switch c.Type {
	case phase.CmdWaveStarted:
		l.Text = fmt.Sprintf("wave %d started", c.Wave)
	case phase.CmdPlanState:
		l.Text = string(c.State)
		if c.Reason != "" {
			l.Text += ": " + c.Reason
		}
	case phase.CmdRunFinished:
		l.Text = "run finished: " + c.Reason
	case phase.CmdCheckpointOpened:
		l.Text = fmt.Sprintf("checkpoint #%d opened: %s", c.Checkpoint.ID, Title(*c.Checkpoint))
	case phase.CmdCheckpointClosed:
		l.Text = fmt.Sprintf("→ response %q sent to executor-%s (answered by %s)", c.Checkpoint.Answer, c.Plan, c.Checkpoint.AnsweredBy)
	case phase.CmdNeedHuman:
		l.Text = fmt.Sprintf("--yes cannot answer this %s: a human must", c.Checkpoint.Type)
	case phase.CmdNote:
		l.Text = "note: " + c.Text
	default:
		return l, false
	}
	return l, true
}
