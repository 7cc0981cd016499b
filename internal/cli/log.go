package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/spf13/cobra"
)

type logOptions struct {
	*globalOptions
	run      int64
	json     bool
	pipeline bool
}

func newLogCmd(g *globalOptions) *cobra.Command {
	o := &logOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the journal: every event of a run, in order, one readable line each (--json: as journaled)",
		Long: `Print the journal of one run, every event in order. hive keeps two
journals: execute-phase's runs and hive run's. Without --run or --pipeline,
hive log prints the newest run of either.`,
		Example: `  hive log            # the newest run
  hive log --run 2 --json | jq -c 'select(.type == "answer")'
  hive log --pipeline --run 1   # hive run's run 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return logRun(cmd, o) },
	}
	cmd.Flags().Int64Var(&o.run, "run", 0, "the run to print (default: the newest)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event, its payload as journaled")
	cmd.Flags().BoolVar(&o.pipeline, "pipeline", false, "a run of hive run (default with --run: execute-phase's, where it has run)")
	return cmd
}

func logRun(cmd *cobra.Command, o *logOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	pipePath := filepath.Join(repo.Root, ".hive", "runs.db")
	_, perr := os.Stat(pipePath)
	hasPhase, hasPipe := hasJournal(repo.Root), perr == nil
	if !hasPhase && !hasPipe {
		return exit.Errorf(exit.Failed, "no journal in %s yet: nothing has run (start with hive execute-phase N or hive run \"objective\")", repo.Root)
	}
	if o.pipeline && !hasPipe {
		return exit.Errorf(exit.Failed, "hive run has not run in %s yet: start with hive run \"objective\"", repo.Root)
	}
	// Each journal's run as asked; the newest of the two when no --run
	// or --pipeline says which.
	type found struct {
		j   journal.Journal
		run journal.Run
		err error
	}
	pick := func(path, whose string) found {
		j, err := journal.Open(path)
		if err != nil {
			return found{err: err}
		}
		run, err := pickRun(j, o.run, whose)
		return found{j, run, err}
	}
	var phase, pipe found
	if hasPhase && !o.pipeline {
		if phase = pick(runconfig.JournalPath(repo.Root), "execute-phase's"); phase.j != nil {
			defer phase.j.Close()
		}
	}
	if hasPipe && (o.pipeline || o.run == 0 || !hasPhase || phase.err != nil) {
		if pipe = pick(pipePath, "hive run's"); pipe.j != nil {
			defer pipe.j.Close()
		}
	}
	use, pipeline := phase, false
	switch {
	case pipe.j != nil && pipe.err == nil && (o.pipeline || phase.j == nil || phase.err != nil || pipe.run.Started.After(phase.run.Started)):
		use, pipeline = pipe, true
	case phase.j == nil && phase.err == nil:
		use = pipe // no phase journal: hive run's answer, error or not
	}
	if use.err != nil {
		return use.err
	}
	if use.j == nil {
		return exit.Errorf(exit.Failed, "nothing has run yet in %s", repo.Root)
	}
	j, run := use.j, use.run
	if o.json {
		enc := json.NewEncoder(o.stdout)
		return j.Each(run.ID, func(rec journal.Record) error {
			return enc.Encode(map[string]any{"run": rec.Run, "seq": rec.Seq, "time": rec.Time, "type": rec.Type, "event": rec.Payload})
		})
	}
	if pipeline {
		return logPipeline(o, j, run)
	}
	fmt.Fprintf(o.stdout, "run %d of %s, started %s\n", run.ID, run.Phase, run.Started.Local().Format("2006-01-02 15:04:05"))
	var line bytes.Buffer
	// The lines execute-phase prints as the events happen, numbered.
	plain := newPlainObserver(&line)
	// The engine replays the run beside the lines, so that each is told with
	// the state after its event, as execute-phase tells it.
	eng := engine.New()
	return j.Each(run.ID, func(rec journal.Record) error {
		line.Reset()
		var ev engine.Event
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
		_, err := fmt.Fprintf(o.stdout, "%6d %s\n", rec.Seq, text)
		return err
	})
}

// pickRun finds run id (the newest for 0) in j, which holds whose runs.
func pickRun(j journal.Journal, id int64, whose string) (journal.Run, error) {
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, err
	}
	for _, r := range runs {
		if id == 0 || r.ID == id {
			return r, nil
		}
	}
	if id == 0 {
		return journal.Run{}, exit.Errorf(exit.Failed, "nothing has run yet: %s journal holds no run", whose)
	}
	return journal.Run{}, exit.Errorf(exit.Failed, "no run %d in %s journal (hive status lists runs; --pipeline picks hive run's)", id, whose)
}

// logPipeline prints a run of hive run: the lines hive run printed as it
// went (the machine replayed beside the journal gives them), and the
// events it did not print, one per line.
func logPipeline(o *logOptions, j journal.Journal, run journal.Run) error {
	fmt.Fprintf(o.stdout, "hive run %d, started %s\n", run.ID, run.Started.Local().Format("2006-01-02 15:04:05"))
	var line bytes.Buffer
	var at time.Time
	p := &runPrinter{w: &line, start: run.Started, clock: func() time.Time { return at }}
	m := pipeline.New()
	return j.Each(run.ID, func(rec journal.Record) error {
		line.Reset()
		at = rec.Time
		var ev pipeline.Event
		var d piperun.Delivery
		var w piperun.Warned
		var given piperun.ContextRecord
		var scores []confidence.Score
		var planned piperun.Planning
		var told piperun.PostmortemRecord
		if rec.Type == piperun.PostmortemEvent && json.Unmarshal(rec.Payload, &told) == nil {
			text := told.Narrative
			if text == "" {
				text = "none from the model: " + told.Error
			}
			fmt.Fprintf(&line, "%s  %-17s %s\n", p.stamp(), "postmortem", oneLineClip(text, 160))
		} else if rec.Type == piperun.PlannedEvent && json.Unmarshal(rec.Payload, &planned) == nil {
			fmt.Fprintf(&line, "%s  %-17s %s (by the %s): %s\n", p.stamp(), "planned", planned.Workflow, planned.By, planned.Reasoning)
		} else if rec.Type == piperun.ConfidenceEvent && json.Unmarshal(rec.Payload, &scores) == nil {
			for _, c := range scores {
				fmt.Fprintf(&line, "%s  %-17s confidence %d/%d\n", p.stamp(), c.Role, c.Points, c.Max)
			}
		} else if rec.Type == piperun.ContextEvent && json.Unmarshal(rec.Payload, &given) == nil {
			var parts []string
			for _, p := range given.Parts {
				cut := ""
				if p.Cut {
					cut = ", cut"
				}
				parts = append(parts, fmt.Sprintf("%s (%d bytes%s)", p.Title, p.Bytes, cut))
			}
			fmt.Fprintf(&line, "%s  %-17s given (attempt %d): %s\n", p.stamp(), given.Job, given.Attempt, strings.Join(parts, "; "))
		} else if rec.Type == piperun.WarnedEvent && json.Unmarshal(rec.Payload, &w) == nil {
			fmt.Fprintf(&line, "%s  %-17s warned (attempt %d): %s\n", p.stamp(), w.Job, w.Attempt, strings.Join(w.Warnings, "\n"))
		} else if rec.Type == piperun.DeliveredEvent && json.Unmarshal(rec.Payload, &d) == nil {
			fmt.Fprintf(&line, "%s  %-17s branch %s at %.12s: %s\n", p.stamp(), "delivered", d.Branch, d.Tip, strings.Join(d.Notes, "; "))
		} else if err := json.Unmarshal(rec.Payload, &ev); err != nil || rec.Type != string(ev.Type) {
			fmt.Fprintf(&line, "%s  %-17s %s (unreadable) %s\n", p.stamp(), "", rec.Type, oneLineClip(string(rec.Payload), 100))
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
		_, err := fmt.Fprintf(o.stdout, "%6d %s\n", rec.Seq, text)
		return err
	})
}

// quietPipelineEvent describes the events hive run does not print as they
// happen, for the log.
func quietPipelineEvent(ev pipeline.Event) string {
	switch ev.Type {
	case pipeline.EvResumed:
		return "resumed by a new hive process"
	case pipeline.EvAgentStarted:
		return fmt.Sprintf("agent running (attempt %d, pid %d)", ev.Attempt, ev.PID)
	case pipeline.EvAgentExited:
		if ev.Reason != "" && ev.Reason != "exited normally" {
			return fmt.Sprintf("agent exited %d: %s", ev.ExitCode, oneLineClip(ev.Reason, 100))
		}
		return fmt.Sprintf("agent exited %d", ev.ExitCode)
	case pipeline.EvUsage:
		return fmt.Sprintf("used %s", spendText(ev.Spend))
	case pipeline.EvToolCall:
		return fmt.Sprintf("called %s (%s)", ev.Tool, ev.Text)
	case pipeline.EvAnswer:
		return fmt.Sprintf("answered: %s", oneLineClip(ev.Text, 100))
	case pipeline.EvReport:
		return "reported: " + strings.Join(ev.Errors, "; ")
	case pipeline.EvLinted:
		return fmt.Sprintf("the plans' lint: %d error(s): %s", len(ev.Errors), oneLineClip(strings.Join(ev.Errors, "; "), 100))
	case pipeline.EvDelivered, pipeline.EvPushed:
		what := map[pipeline.EventType]string{pipeline.EvDelivered: "pull request opened", pipeline.EvPushed: "fix pushed"}[ev.Type]
		if !ev.OK || ev.PR == nil {
			return fmt.Sprintf("%s: no: %s", what, oneLineClip(ev.Reason, 100))
		}
		return fmt.Sprintf("%s: #%d %s, head %.7s", what, ev.PR.Number, ev.PR.URL, ev.PR.Head)
	case pipeline.EvPullRequest:
		if ev.PR == nil {
			break
		}
		return fmt.Sprintf("pull request #%d: %s, head %.7s, %d failed check(s), %d review thread(s)", ev.PR.Number, strings.ToLower(ev.PR.State), ev.PR.Head, len(ev.CI), len(ev.Threads))
	}
	return string(ev.Type)
}

// quietEvent describes the events execute-phase does not print as they
// happen, for the log, which shows every event.
func quietEvent(ev engine.Event) string {
	switch ev.Type {
	case engine.EvUsage:
		return fmt.Sprintf("turn ended (attempt %d): %d in / %d out tokens, $%.4f so far", ev.Attempt, ev.InputTokens, ev.OutputTokens, ev.CostUSD)
	case engine.EvSpend:
		return fmt.Sprintf("spent mid-turn (attempt %d, one request): %d in, %d cache read, %d cache written, ~%d out tokens, $%.4f", ev.Attempt,
			ev.InputTokens, ev.CacheReadTokens, ev.CacheWriteTokens, ev.OutputTokens, ev.TurnUSD)
	case engine.EvWake:
		return "the wait for an answer is over: the run stops for a human if still idle at a checkpoint"
	case engine.EvCommitsChecked:
		if ev.OK {
			return fmt.Sprintf("silent agent (attempt %d) committed lately: left running", ev.Attempt)
		}
		return fmt.Sprintf("silent agent (attempt %d) made no commit lately", ev.Attempt)
	}
	// An event this hive does not describe (a newer one): its type and text.
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ev.Type, ev.Text, ev.Reason))
}
