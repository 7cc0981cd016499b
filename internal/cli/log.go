package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
		Short: "Print the journal: every event of a run, in order",
		Example: `  hive log            # the newest run
  hive log --run 2 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return logRun(cmd, o) },
	}
	cmd.Flags().Int64Var(&o.run, "run", 0, "the run to print (default: the newest)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event")
	return cmd
}

func logRun(cmd *cobra.Command, o *logOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo.Root, ".hive", "journal.db")); os.IsNotExist(err) {
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
			return exitf(ExitFailed, "the journal holds no run yet")
		}
		return exitf(ExitFailed, "no run %d in the journal (`hive status` lists runs)", o.run)
	}
	if !o.json {
		fmt.Fprintf(o.stdout, "run %d of %s, started %s\n", run.ID, run.Phase, run.Started.Local().Format("2006-01-02 15:04:05"))
	}
	enc := json.NewEncoder(o.stdout)
	return j.Each(run.ID, func(rec journal.Record) error {
		if o.json {
			return enc.Encode(map[string]any{"run": rec.Run, "seq": rec.Seq, "time": rec.Time, "type": rec.Type, "event": rec.Payload})
		}
		_, err := fmt.Fprintf(o.stdout, "%6d %s %-14s %s\n", rec.Seq, rec.Time.Local().Format("15:04:05.000"), rec.Type, rec.Payload)
		return err
	})
}
