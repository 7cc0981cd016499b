package cli

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/tui"
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
			rep, err := piperun.BuildReport(cmd.Context(), j, repo, run)
			if err != nil {
				return exit.With(exit.Internal, err)
			}
			if asJSON {
				return printJSON(g.stdout, rep)
			}
			printReport(g, rep)
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
	Verification *engine.Verification `json:"verification,omitempty"`
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
			line += ": " + oneLineClip(d, 200)
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

func printReport(g *globalOptions, r piperun.Report) {
	w := g.stdout
	outcome := r.Outcome
	if outcome == "" {
		outcome = "unfinished"
		if r.Open != nil {
			outcome += ", waiting for you: " + r.Open.Question + " (hive run --resume --answer " + strings.Join(r.Open.Options, "|") + ")"
		}
	}
	if failed := r.FailedChecks(); len(failed) > 0 && r.Outcome != "" {
		outcome += ", but hive's own checks failed: " + strings.Join(failed, ", ")
	}
	fmt.Fprintf(w, "run %d: %s\n  workflow %s, started %s, %s\n", r.Run, r.Objective, r.Workflow, r.Started.Local().Format("2006-01-02 15:04"), outcome)
	fmt.Fprintf(w, "\n%s\n", tui.Wrap(r.Postmortem, 80))
	var plans []tui.PlanState
	for _, p := range r.Implementers {
		plans = append(plans, tui.PlanState{ID: p.ID, State: p.State})
	}
	fmt.Fprintf(w, "\n%s", ansi.Strip(tui.PipelineView(r.Snapshot, plans, 80)))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "\nROLE\tSTATE\tATTEMPTS\tTIME\tTOKENS IN/OUT\tCOST\tREPORTED")
	for _, role := range r.Roles {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d/%d\t$%.2f\t%s\n", role.Job, role.State, role.Attempts, roundDuration(role.Duration),
			role.Spend.InputTokens, role.Spend.OutputTokens, role.Spend.CostUSD, role.Status)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntotal: %d/%d tokens, $%.2f\n", r.Spend.InputTokens, r.Spend.OutputTokens, r.Spend.CostUSD)
	fmt.Fprint(w, r.Timeline.Text())
	if len(r.Implementers) > 0 {
		var parts []string
		for _, p := range r.Implementers {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", p.ID, p.State, roundDuration(p.Finished.Sub(p.Started))))
		}
		how := "one after another"
		if r.Parallel {
			how = "in parallel"
		}
		fmt.Fprintf(w, "implementers, %s: %s\n", how, strings.Join(parts, ", "))
	}
	for _, c := range r.Challenges {
		fmt.Fprintf(w, "challenge: %s → %s (round %d): %s\n", c.From, c.To, c.Round, oneLineClip(c.Issue, 100))
	}
	for _, d := range r.Decisions {
		fmt.Fprintf(w, "decision (%s): %s → %s\n", d.By, oneLineClip(d.Question, 80), d.Choice)
	}
	if r.FixLoops > 0 {
		fmt.Fprintf(w, "fix loops: %d\n", r.FixLoops)
	}
	switch t := r.Tests; {
	case t == nil:
	case t.None:
		fmt.Fprintf(w, "tests: skipped: %s (not a pass; set commands.test in .hive/config.json)\n", noTestsText(t))
	default:
		fmt.Fprintf(w, "tests: %s: exit %d, %d passed, %d failed\n", t.Command, t.ExitCode, t.Passed, t.Failed)
	}
	fmt.Fprint(w, r.PullRequest.Text())
	where := "on branch " + r.Branch
	if r.Merged {
		where = "merged"
	}
	fmt.Fprintf(w, "commits (%d, %s):\n", len(r.Commits), where)
	for _, c := range r.Commits {
		fmt.Fprintf(w, "  %s\n", c)
	}
	if len(r.Confidence) > 0 {
		fmt.Fprintln(w, "confidence, from hive's own checks:")
		for _, c := range r.Confidence {
			fmt.Fprintf(w, "  %-12s %s\n", c.Role, c.String())
		}
	}
	var evaluated []string
	for _, j := range r.Snapshot.Jobs {
		if e := j.Evaluation; e != nil {
			var verdicts []string
			for _, v := range e.Verdicts {
				verdicts = append(verdicts, v.Aspect+" "+cmp.Or(v.Verdict, "none"))
			}
			evaluated = append(evaluated, fmt.Sprintf("  %-12s %s: %s", j.ID, e.Summary(), strings.Join(verdicts, ", ")))
		}
	}
	if len(evaluated) > 0 {
		fmt.Fprintln(w, "evaluated, as each role finished (its last attempt):")
		fmt.Fprintln(w, strings.Join(evaluated, "\n"))
	}
	if len(r.Screenshots) > 0 {
		fmt.Fprintf(w, "screenshots (%d):\n", len(r.Screenshots))
		for _, p := range r.Screenshots {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

// roundDuration keeps tenths of a second under ten seconds.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
