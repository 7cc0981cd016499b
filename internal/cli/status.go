package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/handoff"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/runner/replay"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/work"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	*globalOptions
	temporalFlags
	json  bool
	watch bool
	root  string // the repository's root, once opened
}

func newStatusCmd(g *globalOptions) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the latest run of each phase, read from the journal (live with --watch)",
		Example: `  hive status
  hive status --watch   # the dashboard of a run in another terminal, read-only
  hive status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return statusRun(cmd, o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.watch, "watch", false, "follow the newest run live: the dashboard in a terminal, else the overview again on each change until the run ends")
	o.temporalFlags.add(cmd, o.globalOptions, "where the runs are kept: local (the default: .hive/journal.db) or temporal (each phase's Temporal workflow)")
	return cmd
}

type statusPlan struct {
	ID       string  `json:"id"`
	Wave     int     `json:"wave"`
	State    string  `json:"state"`
	Attempt  int     `json:"attempt"`
	Tasks    string  `json:"tasks"`
	Tokens   int64   `json:"tokens"`
	CostUSD  float64 `json:"cost_usd"`
	Progress string  `json:"progress,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	// Rung is the step down the model ladder its latest agent started on
	// for the budget (0: the configured model).
	Rung int `json:"rung,omitempty"`
	// Context is how full its agent session's context is, with the
	// handoff point and the rollovers and compactions of its sessions.
	Context phase.ContextUse `json:"context"`
}

type statusRunView struct {
	Kind string `json:"kind"` // "phase": a run of execute-phase
	Run  int64  `json:"run"`
	// Workflow is the Temporal workflow of a run kept there (--backend
	// temporal); Run is 0.
	Workflow string       `json:"workflow,omitempty"`
	Phase    string       `json:"phase"`
	Dir      string       `json:"dir"`
	Started  time.Time    `json:"started"`
	Finished *time.Time   `json:"finished,omitempty"`
	Outcome  string       `json:"outcome,omitempty"`
	Events   int64        `json:"events"`
	Plans    []statusPlan `json:"plans"`
	// Jobs are every unit of agent work: the plans, their conflicts'
	// resolvers and the phase verifier.
	Jobs  []phase.Job        `json:"jobs"`
	Queue []phase.Checkpoint `json:"queue,omitempty"`
	snap  phase.Snapshot

	// Elapsed is how long hive has run the run: without the time it was
	// down between a stop and a resume.
	Elapsed string `json:"elapsed"`
	// Live says a hive process (PID) drives this unfinished run now; a run
	// neither finished nor live has stopped, and Resume goes on with it.
	Live   bool   `json:"live"`
	PID    int    `json:"pid,omitempty"`
	Resume string `json:"resume,omitempty"`

	// Spend is what every agent of the run used (plans, resolvers,
	// verifier): tokens by kind, cache included, and dollars. SpentUSD
	// and SpentTokens (every token counted) are what the budget counts.
	Spend       work.Spend `json:"spend"`
	SpentUSD    float64    `json:"spent_usd"`
	SpentTokens int64      `json:"spent_tokens"`
	// The budget as it stands (raised by answers; 0: no ceiling), Rung the
	// step down the model ladder every new agent takes (1 past 80 %), and
	// BudgetWaiting: the run waits at the budget checkpoint (`hive answer
	// budget raise|raise N|stop`).
	BudgetUSD     float64 `json:"budget_usd,omitempty"`
	BudgetTokens  int64   `json:"budget_tokens,omitempty"`
	BudgetPlanUSD float64 `json:"budget_plan_usd,omitempty"`
	Rung          int     `json:"rung,omitempty"`
	BudgetWaiting bool    `json:"budget_waiting,omitempty"`
	// Paused: `hive pause` paused the run at PausedAt; Handoff is the
	// handoff file it wrote.
	Paused   bool       `json:"paused,omitempty"`
	PausedAt *time.Time `json:"paused_at,omitempty"`
	Handoff  string     `json:"handoff,omitempty"`
	// Limit: the run waits for a provider's limit to pass (kind usage,
	// rate or overload) until its until, when the plans go on. Fallback:
	// a usage limit switched the run to models.fallback.
	Limit    *work.LimitWait `json:"limit,omitempty"`
	Fallback bool            `json:"fallback,omitempty"`
}

func statusRun(cmd *cobra.Command, o *statusOptions) error {
	repo, err := openRepo(cmd.Context(), o.globalOptions)
	if err != nil {
		return err
	}
	o.root = repo.Root
	switch o.backend {
	case "", "local":
	case "temporal":
		if o.watch && !o.json {
			return watchTemporal(cmd.Context(), o)
		}
		return statusTemporal(cmd.Context(), o)
	default:
		return exit.Errorf(exit.Usage, "--backend %q: want local or temporal", o.backend)
	}
	pipe, err := pipelineStatus(o)
	if err != nil {
		return err
	}
	if !hasJournal(repo.Root) {
		if pipe != nil {
			return printPipelineStatus(o, nil, pipe)
		}
		return noRuns(o)
	}
	j, err := openJournal(repo.Root)
	if err != nil {
		return err
	}
	defer j.Close()
	if o.watch && !o.json {
		return watchStatus(cmd.Context(), o, j)
	}
	if pipe == nil {
		return printStatus(o, j)
	}
	views, err := phaseViews(o, j)
	if err != nil {
		return err
	}
	return printPipelineStatus(o, views, pipe)
}

// printStatus prints the latest run of each phase once.
func printStatus(o *statusOptions, j journal.Journal) error {
	views, err := phaseViews(o, j)
	if err != nil {
		return err
	}
	if len(views) == 0 && !o.watch {
		return noRuns(o)
	}
	if o.json {
		return printJSON(o.stdout, views)
	}
	printPhaseViews(o, views)
	return nil
}

// phaseViews are the latest run of each phase, newest first.
func phaseViews(o *statusOptions, j journal.Journal) ([]statusRunView, error) {
	runs, err := j.Runs()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var views []statusRunView
	for _, run := range runs {
		if seen[run.Phase] {
			continue
		}
		seen[run.Phase] = true
		v, err := journaledPhaseView(o, j, run)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}

// journaledPhaseView is what status shows of a phase's run in the journal:
// its state replayed, whether a hive drives it now, how to resume it.
func journaledPhaseView(o *statusOptions, j journal.Journal, run journal.Run) (statusRunView, error) {
	eng, err := replay.Run(j, run)
	if err != nil {
		return statusRunView{}, err
	}
	snap := eng.Snapshot()
	v := phaseView(snap, run.ID, run.Phase, run.Started, run.Outcome)
	v.Events = run.Events
	if !run.Finished.IsZero() {
		f := run.Finished
		v.Finished = &f
	} else if v.PID, v.Live = lock.PhaseHolder(o.root, run.Phase); !v.Live {
		v.Resume = o.pasteable(o.root, "execute-phase", snap.Phase)
	}
	v.Elapsed = activeTime(snap, v.Live, time.Now()).Round(time.Second).String()
	return v, nil
}

// phaseView is what status shows of a phase's run in state snap.
func phaseView(snap phase.Snapshot, run int64, dir string, started time.Time, outcome string) statusRunView {
	v := statusRunView{Kind: "phase", Run: run, Phase: snap.Phase, Dir: dir, Started: started, Outcome: outcome,
		Queue: snap.Queue, snap: snap,
		Spend: snap.Spent, SpentUSD: snap.Spent.CostUSD, SpentTokens: snap.Spent.Tokens(),
		BudgetUSD: snap.Budget.USD, BudgetTokens: snap.Budget.Tokens, BudgetPlanUSD: snap.Budget.PlanUSD, Rung: snap.Rung,
		BudgetWaiting: tui.BudgetOpen(snap) != nil}
	if snap.Paused {
		at := snap.PausedAt
		v.Paused, v.PausedAt, v.Handoff = true, &at, filepath.ToSlash(handoff.Path(dir))
	}
	v.Limit, v.Fallback = snap.Limit, snap.Fallback
	for _, p := range snap.Plans {
		v.Plans = append(v.Plans, statusPlan{ID: p.Spec.ID, Wave: p.Spec.Wave, State: string(p.State), Attempt: p.Attempt,
			Tasks: fmt.Sprintf("%d/%d", p.TasksDone, p.Spec.Tasks), Progress: p.Progress, Reason: p.Reason,
			Tokens: p.InputTokens + p.OutputTokens, CostUSD: p.CostUSD, Rung: p.Rung, Context: p.Context})
	}
	v.Jobs = snap.Jobs()
	return v
}

func printPhaseViews(o *statusOptions, views []statusRunView) {
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(o.stdout)
		}
		stopped := "stopped — resume with: " + v.Resume
		if v.Paused {
			stopped = fmt.Sprintf("paused at %s (handoff: %s) — resume with: %s", v.PausedAt.Local().Format("2006-01-02 15:04:05"), v.Handoff, v.Resume)
		}
		state := runState(v.Finished, v.Outcome, v.Live, v.PID, stopped)
		which := fmt.Sprintf("run %d", v.Run)
		if v.Workflow != "" {
			which = "Temporal workflow " + v.Workflow
		}
		fmt.Fprintf(o.stdout, "Phase %s (%s), %s, started %s, %s\n", v.Phase, v.Dir, which, v.Started.Local().Format("2006-01-02 15:04:05"), state)
		tw := tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "  WAVE\tPLAN\tSTATE\tATTEMPT\tTASKS\tTOKENS\tCOST\tCONTEXT\tDETAIL")
		for _, p := range v.Plans {
			detail := p.Progress
			if p.Reason != "" {
				detail = p.Reason
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%s\t%d\t$%.2f\t%s\t%s\n", p.Wave, p.ID, lines.StateWord(phase.PlanState(p.State)), p.Attempt, p.Tasks, p.Tokens, p.CostUSD, tui.ContextText(p.Context), detail)
		}
		tw.Flush()
		// The other jobs, beside the plans: resolvers and the verifier.
		// A resolver's spend is already in its plan's row.
		tw = tabwriter.NewWriter(o.stdout, 0, 2, 2, ' ', 0)
		for _, jb := range v.Jobs {
			if jb.Kind == phase.JobPlan {
				continue
			}
			line := fmt.Sprintf("  job\t%s\t%s\t%d attempt(s)\t%d tokens\t$%.2f", jb.ID, lines.StateWord(phase.PlanState(jb.State)), jb.Attempts, jb.InputTokens+jb.OutputTokens, jb.CostUSD)
			if jb.State == string(phase.Running) && jb.Stage != "" {
				line += "\t" + jb.Stage // where the verification stands
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
		fmt.Fprintf(o.stdout, "  total: %s, %s elapsed\n", lines.RunSpendText(v.Spend, v.snap.Agent), activeTime(v.snap, v.Live, time.Now()).Round(time.Second))
		if b := tui.BudgetText(v.snap); b != "" {
			fmt.Fprintf(o.stdout, "  budget: %s\n", b)
		}
		o.limitLines(v.Limit, v.Fallback, v.Finished == nil)
		if v.BudgetWaiting { // what it says is in the queue below
			fmt.Fprintf(o.stdout, "  waiting at the budget checkpoint: %s\n",
				strings.Replace(o.pasteable(o.root, "answer", phase.BudgetID, "RESPONSE"), "RESPONSE", "raise|raise N|stop", 1))
		}
		lines.WriteQueue(o.stdout, v.Queue, v.snap.Plans)
	}
}

// activeTime is how long hive has run a run: the journal's active time,
// plus the time since its last event while a hive process still runs it.
// The time hive was down before a resume never counts.
func activeTime(snap phase.Snapshot, live bool, now time.Time) time.Duration {
	d := snap.Active
	if live && !snap.Finished && !snap.LastEvent.IsZero() && now.After(snap.LastEvent) {
		d += now.Sub(snap.LastEvent)
	}
	return d
}

// noRuns says that nothing has run yet.
func noRuns(o *statusOptions) error {
	if o.json {
		fmt.Fprintln(o.stdout, "[]")
		return nil
	}
	fmt.Fprintln(o.stdout, "No runs yet. Start one with `hive execute-phase PHASE` or `hive run \"objective\"`.")
	return nil
}

// runState says where a run stands: finished (and how), driven by a live
// hive now, or stopped (the text says how to go on).
func runState(finished *time.Time, outcome string, live bool, pid int, stopped string) string {
	switch {
	case finished != nil:
		return "finished " + finished.Local().Format("2006-01-02 15:04:05") + ": " + outcome
	case live && pid == 0:
		return "running now (a Temporal workflow; its workers carry it out)"
	case live:
		return fmt.Sprintf("running now (hive pid %d)", pid)
	}
	return stopped
}
