package cli

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
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
		return lines.RunLog(o.stdout, j, run)
	}
	return lines.PhaseLog(o.stdout, j, run)
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
