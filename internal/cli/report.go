package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/spf13/cobra"
)

func newReportCmd(g *globalOptions) *cobra.Command {
	var asJSON, phase bool
	cmd := &cobra.Command{
		Use:   "report [RUN]",
		Short: "Account for a run of hive run or execute-phase: roles or plans, attempts, time, tokens and cost, challenges, fix loops, decisions, commits, tests",
		Example: `  hive report                # the newest run, of hive run or of execute-phase
  hive report 3 --json | jq '.roles[] | {job, attempts, status}'   # hive run's run 3
  hive report --phase        # the newest run of execute-phase
  hive report --phase 2      # execute-phase's run 2, as hive status numbers it`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			if !phase && len(args) == 0 {
				if phase, err = phaseRunIsNewest(repo.Root); err != nil {
					return err
				}
			}
			if phase {
				return reportPhaseRun(g, repo.Root, args, asJSON)
			}
			j, run, err := pipelineRun(repo.Root, args, "hive report")
			if err != nil {
				return err
			}
			defer j.Close()
			rep, err := runreport.Build(cmd.Context(), j, repo, run)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			if asJSON {
				return printJSON(g.stdout, rep)
			}
			lines.Report(g.stdout, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().BoolVar(&phase, "phase", false, "report a run of execute-phase (RUN: its number, as hive status shows it); without RUN or --phase, the newest run of either kind")
	return cmd
}

// phaseRunIsNewest says whether the newest run here is execute-phase's
// (.hive/journal.db) rather than hive run's (.hive/runs.db). Neither
// journal is created by asking.
func phaseRunIsNewest(root string) (bool, error) {
	newest := func(path string) (journal.Run, bool, error) {
		if _, err := os.Stat(path); err != nil {
			return journal.Run{}, false, nil
		}
		j, err := journal.Open(path)
		if err != nil {
			return journal.Run{}, false, exit.With(exit.Internal, err)
		}
		defer j.Close()
		runs, err := j.Runs()
		if err != nil || len(runs) == 0 {
			return journal.Run{}, false, err
		}
		return runs[0], true, nil
	}
	phase, okPhase, err := newest(runconfig.JournalPath(root))
	if err != nil {
		return false, err
	}
	pipe, okPipe, err := newest(filepath.Join(root, ".hive", "runs.db"))
	if err != nil {
		return false, err
	}
	return okPhase && (!okPipe || phase.Started.After(pipe.Started)), nil
}

// pipelineRun opens the journal of hive run and finds the run args name
// (the newest when none); cmd names the command, for errors.
func pipelineRun(root string, args []string, cmd string) (journal.Journal, journal.Run, error) {
	j, err := journal.Open(filepath.Join(root, ".hive", "runs.db"))
	if err != nil {
		return nil, journal.Run{}, exit.With(exit.Internal, err)
	}
	runs, err := j.Runs()
	if err != nil {
		j.Close()
		return nil, journal.Run{}, exit.With(exit.Internal, err)
	}
	for _, r := range runs {
		if len(args) == 0 || strconv.FormatInt(r.ID, 10) == args[0] {
			return j, r, nil
		}
	}
	j.Close()
	if len(args) == 0 && cmd == "hive report" {
		return nil, journal.Run{}, exit.Errorf(exit.Usage, "no run yet: start one with hive run \"objective\" or hive execute-phase PHASE")
	}
	if len(args) == 0 {
		return nil, journal.Run{}, exit.Errorf(exit.Usage, "no hive run yet: start one with hive run \"objective\"")
	}
	more := ""
	if cmd == "hive report" {
		more = "; a run of execute-phase is hive report --phase " + args[0]
	}
	return nil, journal.Run{}, exit.Errorf(exit.Usage, "no run %s: %s with no argument shows the newest%s", args[0], cmd, more)
}

// phaseReport is the account of a run of execute-phase: what hive status
// shows of it, with the phase's verification and each plan's commits.
type phaseReport struct {
	statusRunView
	Verification *phase.Verification `json:"verification,omitempty"`
	// Commits are each plan's commits, by plan.
	Commits map[string][]string `json:"commits,omitempty"`
}

// reportPhaseRun prints the run of execute-phase args names (the newest
// when none).
func reportPhaseRun(g *globalOptions, root string, args []string, asJSON bool) error {
	if !hasJournal(root) {
		return exit.Errorf(exit.Usage, "no run of execute-phase yet: start one with hive execute-phase PHASE")
	}
	j, err := openJournal(root)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	i := slices.IndexFunc(runs, func(r journal.Run) bool { return len(args) == 0 || strconv.FormatInt(r.ID, 10) == args[0] })
	switch {
	case i < 0 && len(args) == 0:
		return exit.Errorf(exit.Usage, "no run of execute-phase yet: start one with hive execute-phase PHASE")
	case i < 0:
		return exit.Errorf(exit.Usage, "no run %s of execute-phase: hive status numbers them; hive report --phase with no argument shows the newest", args[0])
	}
	o := &statusOptions{globalOptions: g, root: root}
	v, err := journaledPhaseView(o, j, runs[i])
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	snap := v.snap
	r := phaseReport{statusRunView: v, Verification: snap.Verification}
	for _, p := range snap.Plans {
		if len(p.Commits) > 0 {
			if r.Commits == nil {
				r.Commits = map[string][]string{}
			}
			r.Commits[p.Spec.ID] = p.Commits
		}
	}
	if asJSON {
		return printJSON(g.stdout, r)
	}
	printPhaseViews(o, []statusRunView{r.statusRunView})
	if v := r.Verification; v != nil {
		line := "  verification: " + v.Status
		if d := strings.TrimSpace(v.Details); d != "" {
			line += ": " + lines.OneLineClip(d, 200)
		}
		fmt.Fprintln(g.stdout, line)
	}
	for _, p := range snap.Plans {
		if cs := r.Commits[p.Spec.ID]; len(cs) > 0 {
			fmt.Fprintf(g.stdout, "  %s commits: %s\n", p.Spec.ID, strings.Join(cs, ", "))
		}
	}
	return nil
}
