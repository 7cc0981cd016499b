package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/spf13/cobra"
)

type logOptions struct {
	*globalOptions
	run  int64
	json bool
}

func newLogCmd(g *globalOptions) *cobra.Command {
	o := &logOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the journal: every event of a run, in order, one readable line each (--json: as journaled)",
		Example: `  hive log            # the newest run
  hive log --run 2 --json | jq -c 'select(.type == "answer")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return logRun(cmd, o) },
	}
	cmd.Flags().Int64Var(&o.run, "run", 0, "the run to print (default: the newest)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event, its payload as journaled")
	return cmd
}

func logRun(cmd *cobra.Command, o *logOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	if !hasJournal(repo.Root) {
		return exitf(ExitFailed, "no journal in %s yet: nothing has run", repo.Root)
	}
	j, err := openJournal(repo.Root)
	if err != nil {
		return err
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil {
		return err
	}
	var run *journal.Run
	for i := range runs {
		if o.run == 0 || runs[i].ID == o.run {
			run = &runs[i]
			break
		}
	}
	if run == nil {
		if o.run == 0 {
			return exitf(ExitFailed, "nothing has run yet in %s", repo.Root)
		}
		return exitf(ExitFailed, "no run %d in the journal (`hive status` lists runs)", o.run)
	}
	if o.json {
		enc := json.NewEncoder(o.stdout)
		return j.Each(run.ID, func(rec journal.Record) error {
			return enc.Encode(map[string]any{"run": rec.Run, "seq": rec.Seq, "time": rec.Time, "type": rec.Type, "event": rec.Payload})
		})
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
