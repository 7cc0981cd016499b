package lines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
)

// PhaseLog prints on w a phase run of the journal j as execute-phase
// printed it as it went (the engine replayed beside the journal gives the
// lines), every event numbered, those it did not print told one per line.
func PhaseLog(w io.Writer, j journal.Journal, run journal.Run) error {
	fmt.Fprintf(w, "run %d of %s, started %s\n", run.ID, run.Phase, run.Started.Local().Format("2006-01-02 15:04:05"))
	var line bytes.Buffer
	// The lines execute-phase prints as the events happen, numbered.
	plain := NewPhasePrinter(&line)
	// The engine replays the run beside the lines, so that each is told with
	// the state after its event, as execute-phase tells it.
	eng := engine.New()
	return j.Each(run.ID, func(rec journal.Record) error {
		line.Reset()
		var ev phase.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			plain.line(rec.Time, "", "%s (unreadable: %v) %s", rec.Type, err, rec.Payload)
		} else {
			eng.Step(ev) // an event the engine refuses is still told
			if plain.Event(ev, eng.Snapshot()); line.Len() == 0 {
				plain.line(ev.Time, ev.Plan, "%s", quietEvent(ev))
			}
		}
		// Lines after the first (a gate's output) stay under the text.
		text := strings.ReplaceAll(strings.TrimRight(line.String(), "\n"), "\n", "\n       ")
		_, err := fmt.Fprintf(w, "%6d %s\n", rec.Seq, text)
		return err
	})
}

// RunLog prints on w a run of hive run: the lines hive run printed as it
// went (the machine replayed beside the journal gives them), and the
// events it did not print, one per line.
func RunLog(w io.Writer, j journal.Journal, run journal.Run) error {
	fmt.Fprintf(w, "hive run %d, started %s\n", run.ID, run.Started.Local().Format("2006-01-02 15:04:05"))
	var line bytes.Buffer
	var at time.Time
	p := &RunPrinter{W: &line, Start: run.Started, Clock: func() time.Time { return at }}
	m := pipeline.New()
	return j.Each(run.ID, func(rec journal.Record) error {
		line.Reset()
		at = rec.Time
		var ev roleplan.Event
		var d runjournal.Delivery
		var warned runjournal.Warned
		var given runjournal.ContextRecord
		var scores []confidence.Score
		var planned runjournal.Planning
		var told runjournal.PostmortemRecord
		if rec.Type == runjournal.PostmortemEvent && json.Unmarshal(rec.Payload, &told) == nil {
			text := told.Narrative
			if text == "" {
				text = "none from the model: " + told.Error
			}
			fmt.Fprintf(&line, "%s  %-17s %s\n", p.stamp(), "postmortem", OneLineClip(text, 160))
		} else if rec.Type == runjournal.PlannedEvent && json.Unmarshal(rec.Payload, &planned) == nil {
			fmt.Fprintf(&line, "%s  %-17s %s (by the %s): %s\n", p.stamp(), "planned", planned.Workflow, planned.By, planned.Reasoning)
		} else if rec.Type == runjournal.ConfidenceEvent && json.Unmarshal(rec.Payload, &scores) == nil {
			for _, c := range scores {
				fmt.Fprintf(&line, "%s  %-17s confidence %d/%d\n", p.stamp(), c.Role, c.Points, c.Max)
			}
		} else if rec.Type == runjournal.ContextEvent && json.Unmarshal(rec.Payload, &given) == nil {
			var parts []string
			for _, p := range given.Parts {
				cut := ""
				if p.Cut {
					cut = ", cut"
				}
				parts = append(parts, fmt.Sprintf("%s (%d bytes%s)", p.Title, p.Bytes, cut))
			}
			fmt.Fprintf(&line, "%s  %-17s given (attempt %d): %s\n", p.stamp(), given.Job, given.Attempt, strings.Join(parts, "; "))
		} else if rec.Type == runjournal.WarnedEvent && json.Unmarshal(rec.Payload, &warned) == nil {
			fmt.Fprintf(&line, "%s  %-17s warned (attempt %d): %s\n", p.stamp(), warned.Job, warned.Attempt, strings.Join(warned.Warnings, "\n"))
		} else if rec.Type == runjournal.DeliveredEvent && json.Unmarshal(rec.Payload, &d) == nil {
			fmt.Fprintf(&line, "%s  %-17s branch %s at %.12s: %s\n", p.stamp(), "delivered", d.Branch, d.Tip, strings.Join(d.Notes, "; "))
		} else if err := json.Unmarshal(rec.Payload, &ev); err != nil || rec.Type != string(ev.Type) {
			fmt.Fprintf(&line, "%s  %-17s %s (unreadable) %s\n", p.stamp(), "", rec.Type, OneLineClip(string(rec.Payload), 100))
		} else {
			p.Event(ev, m.Snapshot())
			if line.Len() == 0 {
				fmt.Fprintf(&line, "%s  %-17s %s\n", p.stamp(), ev.Job, quietPipelineEvent(ev))
			}
			cmds, _ := m.Step(ev) // an event refused live changed nothing then either
			for _, c := range cmds {
				p.Command(c, m.Snapshot())
			}
		}
		text := strings.ReplaceAll(strings.TrimRight(line.String(), "\n"), "\n", "\n       ")
		_, err := fmt.Fprintf(w, "%6d %s\n", rec.Seq, text)
		return err
	})
}

// quietPipelineEvent describes the events hive run does not print as they
// happen, for the log.
func quietPipelineEvent(ev roleplan.Event) string {
	switch ev.Type {
	case roleplan.EvResumed:
		return "resumed by a new hive process"
	case roleplan.EvAgentStarted:
		return fmt.Sprintf("agent running (attempt %d, pid %d)", ev.Attempt, ev.PID)
	case roleplan.EvAgentExited:
		if ev.Reason != "" && ev.Reason != "exited normally" {
			return fmt.Sprintf("agent exited %d: %s", ev.ExitCode, OneLineClip(ev.Reason, 100))
		}
		return fmt.Sprintf("agent exited %d", ev.ExitCode)
	case roleplan.EvUsage:
		return fmt.Sprintf("used %s", SpendText(ev.Spend))
	case roleplan.EvToolCall:
		return fmt.Sprintf("called %s (%s)", ev.Tool, ev.Text)
	case roleplan.EvAnswer:
		return fmt.Sprintf("answered: %s", OneLineClip(ev.Text, 100))
	case roleplan.EvReport:
		return "reported: " + strings.Join(ev.Errors, "; ")
	case roleplan.EvLinted:
		return fmt.Sprintf("the plans' lint: %d error(s): %s", len(ev.Errors), OneLineClip(strings.Join(ev.Errors, "; "), 100))
	case roleplan.EvDelivered, roleplan.EvPushed:
		what := map[roleplan.EventType]string{roleplan.EvDelivered: "pull request opened", roleplan.EvPushed: "fix pushed"}[ev.Type]
		if !ev.OK || ev.PR == nil {
			return fmt.Sprintf("%s: no: %s", what, OneLineClip(ev.Reason, 100))
		}
		return fmt.Sprintf("%s: #%d %s, head %.7s", what, ev.PR.Number, ev.PR.URL, ev.PR.Head)
	case roleplan.EvPullRequest:
		if ev.PR == nil {
			break
		}
		return fmt.Sprintf("pull request #%d: %s, head %.7s, %d failed check(s), %d review thread(s)", ev.PR.Number, strings.ToLower(ev.PR.State), ev.PR.Head, len(ev.CI), len(ev.Threads))
	}
	return string(ev.Type)
}

// quietEvent describes the events execute-phase does not print as they
// happen, for the log, which shows every event.
func quietEvent(ev phase.Event) string {
	switch ev.Type {
	case phase.EvUsage:
		return fmt.Sprintf("turn ended (attempt %d): %d in / %d out tokens, $%.4f so far", ev.Attempt, ev.InputTokens, ev.OutputTokens, ev.CostUSD)
	case phase.EvSpend:
		return fmt.Sprintf("spent mid-turn (attempt %d, one request): %d in, %d cache read, %d cache written, ~%d out tokens, $%.4f", ev.Attempt,
			ev.InputTokens, ev.CacheReadTokens, ev.CacheWriteTokens, ev.OutputTokens, ev.TurnUSD)
	case phase.EvWake:
		return "the wait for an answer is over: the run stops for a human if still idle at a checkpoint"
	case phase.EvCommitsChecked:
		if ev.OK {
			return fmt.Sprintf("silent agent (attempt %d) committed lately: left running", ev.Attempt)
		}
		return fmt.Sprintf("silent agent (attempt %d) made no commit lately", ev.Attempt)
	}
	// An event this hive does not describe (a newer one): its type and text.
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ev.Type, ev.Text, ev.Reason))
}
