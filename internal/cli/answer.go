package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runner"
	"github.com/spf13/cobra"
)

type answerOptions struct {
	*globalOptions
	plan string
	text string
	json bool
}

func newAnswerCmd(g *globalOptions) *cobra.Command {
	o := &answerOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "answer PLAN-ID|ROLE RESPONSE",
		Short: "Answer a plan's open checkpoint, or the question of hive run's role, from any terminal, while hive runs or while it is down",
		Long: `answer records the response in the journal. A running hive applies it at
once; a stopped one applies it when the run is resumed. The response is what
the checkpoint awaits: "approved" or the issues found (human-verify), an
option id (decision), "done" (human-action), yes / different approach /
defer (deviation), retry / skip / abort (a failed plan). The question of a
role of hive run (ROLE: architect, implementer, tester, ...) takes one of the
options it lists, or any text for a role's own question.`,
		Example: `  hive answer 03-01 approved
  hive answer 03-02 clerk
  hive answer 03-04 "the header overlaps the menu at 375px"
  hive answer 03-01 clerk --json
  hive answer tester override`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.plan, o.text = args[0], strings.Join(args[1:], " ")
			return answerRun(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the recorded answer as JSON")
	return cmd
}

// answerResult is what --json prints.
type answerResult struct {
	Run        int64  `json:"run"`
	Plan       string `json:"plan"`
	Checkpoint int    `json:"checkpoint"`
	Title      string `json:"title"`
	Answer     string `json:"answer"`
}

func answerRun(cmd *cobra.Command, o *answerOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	if piperun.IsRunJob(o.plan) {
		return answerRunJob(o, repo.Root)
	}
	if !hasJournal(repo.Root) {
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
	red := redact.New()
	if cfg, err := config.Load(repo.Root); err == nil {
		red = redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)
	}
	if _, err := journal.Redacting(j, red).Append(run.ID, string(ev.Type), ev.Time, payload); err != nil {
		return fmt.Errorf("record the answer: %w", err)
	}
	// The answer is shown as journaled: a secret typed into it stays masked.
	if o.json {
		return printJSON(o.stdout, answerResult{Run: run.ID, Plan: o.plan, Checkpoint: cp.ID, Title: titleOf(cp), Answer: red.String(o.text)})
	}
	fmt.Fprintf(o.stdout, "Answer to checkpoint #%d of plan %s (%s) recorded: %q.\nA running hive applies it now; otherwise resume with: %s\n",
		cp.ID, o.plan, titleOf(cp), red.String(o.text), o.pasteable(repo.Root, "execute-phase", eng.Snapshot().Phase))
	return nil
}

// openCheckpoint finds the unfinished run in which plan waits at a
// checkpoint. When it does not wait, the error says where the plan stands
// and lists the plans that do wait, so that the user can pick the right one.
func openCheckpoint(j journal.Journal, planID string) (journal.Run, engine.Checkpoint, error) {
	runs, err := j.Runs()
	if err != nil {
		return journal.Run{}, engine.Checkpoint{}, err
	}
	state := engine.PlanState("")
	var open []string // "PLAN (#ID Title)" of every open checkpoint
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
			open = append(open, fmt.Sprintf("%s (#%d %s)", cp.Plan, cp.ID, titleOf(cp)))
		}
		for _, p := range snap.Plans {
			if p.Spec.ID != planID {
				continue
			}
			if p.State == engine.Waiting && p.Open != nil {
				return run, *p.Open, nil
			}
			if state == "" {
				state = p.State
			}
		}
	}
	msg := fmt.Sprintf("plan %s has no open checkpoint", planID)
	if state != "" {
		msg += fmt.Sprintf(" (it is %s)", state)
	}
	if len(open) == 0 {
		return journal.Run{}, engine.Checkpoint{}, exitf(ExitUsage, "%s, and no plan waits for an answer now (`hive status` shows where each plan stands)", msg)
	}
	return journal.Run{}, engine.Checkpoint{}, exitf(ExitUsage, "%s. Waiting for an answer: %s; answer one with `hive answer PLAN-ID RESPONSE`", msg, strings.Join(open, ", "))
}

// answerRunJob journals the answer to the question hive run asks of a role.
func answerRunJob(o *answerOptions, root string) error {
	db, err := journal.Open(filepath.Join(root, ".hive", "runs.db"))
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	defer db.Close()
	red := redact.New()
	if cfg, err := config.Load(root); err == nil {
		red = redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)
	}
	run, cp, err := piperun.Answer(journal.Redacting(db, red), o.plan, o.text, time.Now())
	var bad *piperun.AnswerError
	switch {
	case errors.As(err, &bad), errors.Is(err, piperun.ErrNoRun):
		return exitf(ExitUsage, "%v", err)
	case err != nil:
		return &exitError{code: ExitInternal, err: err}
	}
	if o.json {
		return printJSON(o.stdout, answerResult{Run: run.ID, Plan: o.plan, Checkpoint: cp.ID, Title: cp.Question, Answer: red.String(o.text)})
	}
	fmt.Fprintf(o.stdout, "Answer to %s's question (%s) recorded: %q.\nA waiting hive run applies it now; otherwise resume with: %s\n",
		o.plan, cp.Question, red.String(o.text), o.pasteable(root, "run", "--resume"))
	return nil
}
