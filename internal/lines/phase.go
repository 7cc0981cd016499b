package lines

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui"
)

// PhasePrinter prints one line per event, for terminals and logs alike,
// and the checkpoint queue in seed 000's format.
type PhasePrinter struct {
	w        io.Writer
	Prompter *Prompter // set when answers are typed in this terminal
	// AnswerCmd is the command that answers plan's checkpoint from another
	// terminal, ready to paste.
	AnswerCmd func(plan string) string
}

func NewPhasePrinter(w io.Writer) *PhasePrinter {
	return &PhasePrinter{w: w, AnswerCmd: func(plan string) string { return "hive answer " + plan + ` "<response>"` }}
}

func (o *PhasePrinter) line(t time.Time, planID, format string, args ...any) {
	if t.IsZero() {
		t = time.Now()
	}
	who := planID
	if who == "" {
		who = "hive"
	}
	fmt.Fprintf(o.w, "%s %-6s %s\n", t.Local().Format("15:04:05"), who, fmt.Sprintf(format, args...))
}

func (o *PhasePrinter) Resumed(run journal.Run, s phase.Snapshot) {
	o.line(time.Time{}, "", "%s", tui.ResumedText(run, s))
}

func (o *PhasePrinter) Event(ev phase.Event, s phase.Snapshot) {
	switch ev.Type {
	case phase.EvRunStarted:
		mode := "rigid waves"
		if ev.Spec.Dynamic {
			mode = "dynamic scheduling"
		}
		done := 0
		for _, p := range ev.Spec.Plans {
			if p.Done {
				done++
			}
		}
		o.line(ev.Time, "", "phase %s: %d plan(s) (%d already complete), up to %d agent(s), %s", ev.Spec.Phase, len(ev.Spec.Plans), done, ev.Spec.MaxConcurrent, mode)
	case phase.EvResumed:
		o.line(ev.Time, "", "resumed: plans that were running start again")
	case phase.EvAgentStarted:
		if ev.Role != "" {
			o.line(ev.Time, ev.Plan, "%s agent started (attempt %d, pid %d)", ev.Role, ev.Attempt, ev.PID)
		} else {
			o.line(ev.Time, ev.Plan, "agent started (attempt %d, pid %d)", ev.Attempt, ev.PID)
		}
	case phase.EvProgress:
		o.line(ev.Time, ev.Plan, "PROGRESS %d/%d: %s", ev.Task, ev.Total, ev.Text)
	case phase.EvPlanComplete:
		o.line(ev.Time, ev.Plan, "reported PLAN COMPLETE (%d commit(s))", len(ev.Commits))
	case phase.EvPlanFailed:
		o.line(ev.Time, ev.Plan, "reported PLAN FAILED: %s", ev.Reason)
	case phase.EvLimited:
		o.line(ev.Time, ev.Plan, "the provider's %s limit ended the turn: %s", ev.Limit.Kind, ev.Limit.Text)
	case phase.EvAgentExited:
		o.line(ev.Time, ev.Plan, "agent exited (attempt %d, code %d: %s)", ev.Attempt, ev.ExitCode, ev.Reason)
	case phase.EvSpotChecked:
		if ev.OK {
			o.line(ev.Time, ev.Plan, "spot-check passed")
		} else {
			o.line(ev.Time, ev.Plan, "spot-check failed: %s", ev.Reason)
		}
	case phase.EvCheckpoint, phase.EvDeviation:
		o.line(ev.Time, ev.Plan, "%s: %s", strings.ToUpper(string(ev.Type)), ev.Checkpoint.Type)
	case phase.EvAnswer:
		o.line(ev.Time, ev.Plan, "answer from %s: %s", ev.By, ev.Text)
	case phase.EvReport:
		r := ev.Report
		text := "HIVE_REPORT " + r.Status
		if r.Confidence > 0 {
			text += fmt.Sprintf(" (confidence %g)", r.Confidence)
		}
		if s := OneLineText(r.Summary); s != "" {
			text += ": " + s
		}
		o.line(ev.Time, ev.Plan, "%s", text)
	case phase.EvSilent:
		o.line(ev.Time, ev.Plan, "silent for %s", ev.Text)
	case phase.EvMerged:
		switch {
		case ev.OK && ev.Reason != "":
			o.line(ev.Time, ev.Plan, "merged (%s)", ev.Reason)
		case ev.OK:
			o.line(ev.Time, ev.Plan, "merged")
		case len(ev.Files) > 0:
			o.line(ev.Time, ev.Plan, "merge conflict in %s: %s", strings.Join(ev.Files, ", "), ev.Reason)
		default:
			o.line(ev.Time, ev.Plan, "merge failed: %s", ev.Reason)
		}
	case phase.EvGateChecked:
		if ev.OK {
			o.line(ev.Time, ev.Plan, "post-merge gate passed")
		} else {
			o.line(ev.Time, ev.Plan, "post-merge gate FAILED:\n%s", Indent(ev.Text))
		}
	case phase.EvVerified:
		if s.Verify.Stage == phase.VerifyAgent {
			o.line(ev.Time, "", "must_haves hold (checked mechanically): the verifier reviews the phase")
			return
		}
		o.line(ev.Time, "", "phase verification: %s", ev.Text)
		if ev.Reason != "" && ev.Text != phase.VerifyPassed {
			fmt.Fprintln(o.w, Indent(ev.Reason))
		}
	}
}

// Indent sets a block of text off under a line of the log.
func Indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func (o *PhasePrinter) Command(c phase.Command, s phase.Snapshot) {
	switch c.Type {
	case phase.CmdWaveStarted:
		o.line(time.Time{}, "", "wave %d started", c.Wave)
	case phase.CmdPlanState:
		switch c.State {
		case phase.Running:
			if c.Reason != "" {
				o.line(time.Time{}, c.Plan, "running (attempt %d): %s", c.Attempt, c.Reason)
			} else {
				o.line(time.Time{}, c.Plan, "running (attempt %d)", c.Attempt)
			}
		case phase.Waiting:
			o.line(time.Time{}, c.Plan, "waiting (%s)", c.Reason)
		case phase.Complete:
			o.line(time.Time{}, c.Plan, "complete")
		case phase.Failed:
			o.line(time.Time{}, c.Plan, "FAILED: %s", c.Reason)
		case phase.Skipped:
			o.line(time.Time{}, c.Plan, "skipped: %s", c.Reason)
		case phase.Pending:
			o.line(time.Time{}, c.Plan, "pending: %s", c.Reason)
		}
	case phase.CmdMerge:
		o.line(time.Time{}, c.Plan, "merging into the integration branch")
	case phase.CmdGate:
		o.line(time.Time{}, c.Plan, "running the post-merge gate")
	case phase.CmdVerify:
		if c.After == "report" {
			o.line(time.Time{}, "", "reading the verifier's report")
		} else {
			o.line(time.Time{}, "", "verifying the phase (must_haves, then the verifier)")
		}
	case phase.CmdRunFinished:
		o.line(time.Time{}, "", "run finished: %s", c.Reason)
	case phase.CmdCheckpointOpened:
		pos := 0
		for i, q := range s.Queue {
			if q.ID == c.Checkpoint.ID {
				pos = i + 1
			}
		}
		switch pos {
		case 0: // answered in the same step (--yes)
			o.line(time.Time{}, c.Plan, "checkpoint #%d (%s): %s", c.Checkpoint.ID, Title(*c.Checkpoint), OneLineText(c.Checkpoint.Details))
		default:
			o.showQueue(s)
		}
	case phase.CmdCheckpointClosed:
		o.line(time.Time{}, c.Plan, "→ response %q sent to executor-%s (answered by %s)", c.Checkpoint.Answer, c.Plan, c.Checkpoint.AnsweredBy)
		o.showQueue(s)
	case phase.CmdNeedHuman:
		o.line(time.Time{}, c.Plan, "--yes cannot answer this %s (%s): a human must, here or with `%s`", c.Checkpoint.Type, Title(*c.Checkpoint), o.AnswerCmd(c.Plan))
	case phase.CmdSend:
		if c.Message == phase.MsgPing {
			o.line(time.Time{}, c.Plan, "pinged")
		}
	case phase.CmdPermission:
		if c.Checkpoint != nil && c.Checkpoint.ID == 0 {
			o.line(time.Time{}, c.Plan, "%s allowed without asking (always allowed in this run)", c.Checkpoint.Tool)
		}
	case phase.CmdNote:
		o.line(time.Time{}, c.Plan, "note: %s", c.Text)
	}
}

// showQueue prints the open checkpoint and points the Prompter at it.
func (o *PhasePrinter) showQueue(s phase.Snapshot) {
	if o.Prompter != nil {
		o.Prompter.show(s.Queue)
	}
	if len(s.Queue) == 0 {
		return
	}
	WriteQueue(o.w, s.Queue, s.Plans)
	if o.Prompter == nil {
		fmt.Fprintf(o.w, "→ answer from another terminal: %s\n\n", o.AnswerCmd(s.Queue[0].Plan))
	} else {
		fmt.Fprint(o.w, "> ")
	}
}

func (o *PhasePrinter) Note(planID, text string) { o.line(time.Time{}, planID, "note: %s", text) }

// PhaseJSON prints one JSON object per event and per command.
type PhaseJSON struct{ enc *json.Encoder }

func NewPhaseJSON(w io.Writer) *PhaseJSON { return &PhaseJSON{enc: json.NewEncoder(w)} }

func (o *PhaseJSON) Resumed(run journal.Run, s phase.Snapshot) {
	o.enc.Encode(map[string]any{"kind": "resumed", "run": run.ID, "phase": s.Phase,
		"complete": s.Count(phase.Complete), "failed": s.Count(phase.Failed), "skipped": s.Count(phase.Skipped)})
}

func (o *PhaseJSON) Event(ev phase.Event, _ phase.Snapshot) {
	o.enc.Encode(struct {
		Kind string `json:"kind"`
		phase.Event
	}{"event", ev})
}

func (o *PhaseJSON) Command(c phase.Command, _ phase.Snapshot) {
	o.enc.Encode(struct {
		Kind string `json:"kind"`
		phase.Command
	}{"command", c})
}

func (o *PhaseJSON) Note(planID, text string) {
	o.enc.Encode(map[string]any{"kind": "note", "plan": planID, "text": text})
}

func OneLineText(s string) string { return OneLineClip(s, 160) }

// OneLineClip is s on one line, cut after n bytes.
func OneLineClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// StateWord is how a plan's state reads in tables.
func StateWord(s phase.PlanState) string {
	if s == "" {
		return "-"
	}
	return strings.ToUpper(string(s[:1])) + string(s[1:])
}
