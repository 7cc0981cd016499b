package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runner"
	"github.com/spf13/cobra"
)

type answerOptions struct {
	*globalOptions
	plan string
	text string
}

func newAnswerCmd(g *globalOptions) *cobra.Command {
	o := &answerOptions{globalOptions: g}
	return &cobra.Command{
		Use:   "answer PLAN-ID RESPONSE",
		Short: "Answer a plan's open checkpoint, from any terminal, while hive runs or while it is down",
		Long: `answer records the response in the journal. A running hive applies it at
once; a stopped one applies it when the run is resumed. The response is what
the checkpoint awaits: "approved" or the issues found (human-verify), an
option id (decision), "done" (human-action), yes / different approach /
defer (deviation), retry / skip / abort (a failed plan).`,
		Example: `  hive answer 03-01 approved
  hive answer 03-02 clerk
  hive answer 03-04 "the header overlaps the menu at 375px"`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.plan, o.text = args[0], strings.Join(args[1:], " ")
			return answerRun(cmd, o)
		},
	}
}

func answerRun(cmd *cobra.Command, o *answerOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo.Root, ".hive", "journal.db")); os.IsNotExist(err) {
		return exitf(ExitUsage, "no run in %s yet: there is nothing to answer", repo.Root)
	}
	j, err := openJournal(repo.Root)
	if err != nil {
		return err
	}
	defer j.Close()
	run, cp, err := openCheckpoint(j, o.plan)
	if err != nil {
		return err
	}
	ev := engine.Event{Type: engine.EvAnswer, Time: time.Now().UTC(), Plan: o.plan, CheckpointID: cp.ID, Text: o.text, By: "hive answer"}
	// Check the answer the way the engine will, before it goes in the journal.
	eng, err := runner.Replay(j, run)
	if err != nil {
		return err
	}
	if _, err := eng.Step(ev); err != nil {
		return exitf(ExitUsage, "%v", err)
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	// A secret typed into an answer is masked like any other (secrets.env
	// and key-shaped text), so the journal never holds it.
	var red journal.Masker = redact.New()
	if cfg, err := config.Load(repo.Root); err == nil {
		red = redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)
	}
	if _, err := journal.Redacting(j, red).Append(run.ID, string(ev.Type), ev.Time, payload); err != nil {
		return fmt.Errorf("record the answer: %w", err)
	}
	fmt.Fprintf(o.stdout, "Answer to checkpoint #%d of plan %s (%s) recorded: %q.\nA running hive applies it now; otherwise run `hive execute-phase` to resume.\n",
		cp.ID, o.plan, titleOf(cp), o.text)
	return nil
}

// openCheckpoint finds the unfinished run in which plan waits at a checkpoint.
func openCheckpoint(j journal.Journal, planID string) (journal.Run, engine.Checkpoint, error) {
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, engine.Checkpoint{}, err
	}
	known := false
	for _, run := range runs {
		if !run.Finished.IsZero() {
			continue
		}
		eng, err := runner.Replay(j, run)
		if err != nil {
			return journal.Run{}, engine.Checkpoint{}, err
		}
		snap := eng.Snapshot()
		for _, cp := range snap.Queue {
			if planID == engine.VerifyID && cp.Plan == engine.VerifyID {
				return run, cp, nil // the phase verification waits for a human
			}
		}
		for _, p := range snap.Plans {
			if p.Spec.ID != planID {
				continue
			}
			known = true
			if p.State == engine.Waiting && p.Open != nil {
				return run, *p.Open, nil
			}
		}
	}
	if known {
		return journal.Run{}, engine.Checkpoint{}, exitf(ExitUsage, "plan %s has no open checkpoint (`hive status` shows where it stands)", planID)
	}
	return journal.Run{}, engine.Checkpoint{}, exitf(ExitUsage, "no unfinished run holds plan %s", planID)
}
