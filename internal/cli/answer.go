package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/answer"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/temporalhost"
	"github.com/hivectl/hive/internal/words"
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
options it lists, or any text for a role's own question. A run that waits for
its provider's usage limit to reset goes on at once with "limit resume-now".`,
		Example: `  hive answer 03-01 approved
  hive answer 03-02 clerk
  hive answer 03-04 "the header overlaps the menu at 375px"
  hive answer 03-01 clerk --json
  hive answer tester override
  hive answer limit resume-now`,
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
		if at, ok := temporalhost.MarkedRun(repo.Root); ok && runjournal.IsRunJob(o.plan) {
			// The project's run is on Temporal, where hive run said: the
			// answer goes to its workflow, which alone steps it while it
			// runs; the journal takes it only for a run that is not there
			// (it ended, or waits for hive run --resume).
			o.address, o.namespace = at.Address, at.Namespace
			sent, err := answerRunTemporal(cmd.Context(), o, repo)
			if sent {
				return err
			}
			if err != nil {
				return exit.Errorf(exit.Usage, "the run's Temporal server at %s could not be asked (%v): answer once it can be, or name it with --temporal-address", at.Address, words.OneLine(err.Error()))
			}
		}
	case "temporal":
		if !runjournal.IsRunJob(o.plan) {
			return answerTemporal(cmd.Context(), o, repo.Root)
		}
		// A role's question of a hive run under way on Temporal: a
		// signal to its workflow; a run that is not (or no longer) there
		// is answered in the project's journal, as a local run's, which
		// its resume steps.
		if sent, err := answerRunTemporal(cmd.Context(), o, repo); sent || err != nil {
			return err
		}
	default:
		return exit.Errorf(exit.Usage, "--backend %q: want local or temporal", o.backend)
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
		return exit.Errorf(exit.Usage, "%v", err)
	case err != nil:
		return exit.With(exit.Internal, err)
	}
	id, title := res.Checkpoint.ID, lines.Title(res.Checkpoint)
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

// answerRunTemporal answers the question of the role o names in the
// project's hive run under way on Temporal: a signal to its workflow;
// sent is false when no run is under way there.
func answerRunTemporal(ctx context.Context, o *answerOptions, repo *gitx.Repo) (sent bool, err error) {
	c, err := o.dial(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	a, err := temporalhost.AnswerRun(ctx, c, repo, o.plan, o.text)
	if !a.Running || err != nil {
		return a.Running, err
	}
	if o.json {
		return true, printJSON(o.stdout, answerResult{Run: a.Run, Plan: o.plan, Checkpoint: a.Question.ID, Title: a.Question.Question, Answer: a.Text})
	}
	fmt.Fprintf(o.stdout, "Answer to %s's question (%s) sent to the run's workflow %s: %q.\nThe run applies it now; follow it with: %s\n",
		o.plan, a.Question.Question, a.Workflow, a.Text, o.pasteable(repo.Root, "run", "--resume", "--backend", "temporal"))
	return true, nil
}

// openAnswerJournals opens the repository's journals that exist (a
// missing one is nil: nothing ran there to answer) and the redactor of
// its secrets, for answer.Record.
func openAnswerJournals(root string) (answer.Journals, func(), error) {
	js := answer.Journals{Root: root, Redactor: redact.New()}
	// A secret typed into an answer is masked like any other (secrets.env
	// and key-shaped text), so the journal never holds it.
	if cfg, err := config.Load(root); err == nil {
		js.Redactor = runconfig.SecretsOf(cfg).Red
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
	}{{runconfig.JournalPath(root), &js.Phase}, {filepath.Join(root, ".hive", "runs.db"), &js.Pipeline}} {
		if _, err := os.Stat(p.path); err != nil {
			continue
		}
		j, err := journal.Open(p.path)
		if err != nil {
			closeAll()
			return js, nil, exit.With(exit.Internal, fmt.Errorf("open journal %s: %w", p.path, err))
		}
		opened = append(opened, j)
		*p.to = j
	}
	return js, closeAll, nil
}
