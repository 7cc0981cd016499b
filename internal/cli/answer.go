package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/answer"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/redact"
	"github.com/spf13/cobra"
)

type answerOptions struct {
	*globalOptions
	temporalFlags
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
	o.temporalFlags.add(cmd, o.globalOptions, "where the run is kept: local (the default: .hive/journal.db) or temporal (the phase's Temporal workflow)")
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
	switch o.backend {
	case "", "local":
	case "temporal":
		// A role's question of hive run is in the project's journal
		// with either backend: the run's driver reads its answers there.
		if !piperun.IsRunJob(o.plan) {
			return answerTemporal(cmd.Context(), o, repo.Root)
		}
	default:
		return exitf(ExitUsage, "--backend %q: want local or temporal", o.backend)
	}
	js, closeAll, err := openAnswerJournals(repo.Root)
	if err != nil {
		return err
	}
	defer closeAll()
	res, err := answer.Record(js, answer.Request{Plan: o.plan, Text: o.text})
	var bad *answer.RefusedError
	switch {
	case errors.As(err, &bad), errors.Is(err, answer.ErrAnswered):
		return exitf(ExitUsage, "%v", err)
	case err != nil:
		return &exitError{code: ExitInternal, err: err}
	}
	id, title := res.Checkpoint.ID, titleOf(res.Checkpoint)
	if res.Pipeline {
		id, title = res.Question.ID, res.Question.Question
	}
	if o.json {
		return printJSON(o.stdout, answerResult{Run: res.Run, Plan: o.plan, Checkpoint: id, Title: title, Answer: res.Answer})
	}
	if res.Pipeline {
		fmt.Fprintf(o.stdout, "Answer to %s's question (%s) recorded: %q.\nA waiting hive run applies it now; otherwise resume with: %s\n",
			o.plan, title, res.Answer, o.pasteable(repo.Root, "run", "--resume"))
		return nil
	}
	fmt.Fprintf(o.stdout, "Answer to checkpoint #%d of plan %s (%s) recorded: %q.\nA running hive applies it now; otherwise resume with: %s\n",
		id, o.plan, title, res.Answer, o.pasteable(repo.Root, "execute-phase", res.Phase))
	return nil
}

// openAnswerJournals opens the repository's journals that exist (a
// missing one is nil: nothing ran there to answer) and the redactor of
// its secrets, for answer.Record.
func openAnswerJournals(root string) (answer.Journals, func(), error) {
	js := answer.Journals{Root: root, Redactor: redact.New()}
	// A secret typed into an answer is masked like any other (secrets.env
	// and key-shaped text), so the journal never holds it.
	if cfg, err := config.Load(root); err == nil {
		js.Redactor = redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)
	}
	var opened []journal.Journal
	closeAll := func() {
		for _, j := range opened {
			j.Close()
		}
	}
	for _, p := range []struct {
		path string
		to   *journal.Journal
	}{{journalPath(root), &js.Phase}, {filepath.Join(root, ".hive", "runs.db"), &js.Pipeline}} {
		if _, err := os.Stat(p.path); err != nil {
			continue
		}
		j, err := journal.Open(p.path)
		if err != nil {
			closeAll()
			return js, nil, &exitError{code: ExitInternal, err: fmt.Errorf("open journal %s: %w", p.path, err)}
		}
		opened = append(opened, j)
		*p.to = j
	}
	return js, closeAll, nil
}
