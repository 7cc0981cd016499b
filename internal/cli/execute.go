package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/notify"
	"github.com/hivectl/hive/internal/notify/phasenotify"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/tui"
	"github.com/spf13/cobra"
)

type executeOptions struct {
	*globalOptions
	phase string
	agent string
	yes   bool
	json  bool
	fresh bool
	rerun bool
	// checkpointWait overrides timeouts.checkpoint_wait when set.
	checkpointWait    time.Duration
	checkpointWaitSet bool
	// allowDirty runs with uncommitted changes in the working tree.
	allowDirty bool
	noTUI      bool
	// budgetUSD overrides budget.usd for a new run when set.
	budgetUSD    float64
	budgetUSDSet bool
	// launcher, when set, is used instead of --agent (the demo sets it).
	launcher agent.Launcher
	onLimit  string
	// The Temporal backend (--backend temporal).
	temporalFlags
	localWorker bool
}

func newExecuteCmd(g *globalOptions) *cobra.Command {
	o := &executeOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "execute-phase PHASE",
		Short: "Run every plan of a phase with one agent per plan; resumes an unfinished run",
		Example: `  hive execute-phase 1 --agent sim
  hive execute-phase 03-authentication --json > events.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.phase = args[0]
			o.checkpointWaitSet = cmd.Flags().Changed("checkpoint-wait")
			o.budgetUSDSet = cmd.Flags().Changed("budget-usd")
			switch o.backend {
			case "", "local":
				return executeRun(cmd.Context(), o)
			case "temporal":
				return executeTemporal(cmd.Context(), o)
			}
			return exit.Errorf(exit.Usage, "--backend %q: want local (the default: this process and its SQLite journal) or temporal", o.backend)
		},
	}
	cmd.Flags().StringVar(&o.agent, "agent", "", "the agent to run plans with: claude, codex, aider, exec or sim (default: models.executor.cli in config, else claude)")
	cmd.Flags().BoolVar(&o.yes, "yes", false, `unattended: approve human-verify, take a decision's first option, retry a failed plan once then skip it; human actions and gate="blocking-human" still wait for a human`)
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event")
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "abandon the phase's unfinished run and start a new one")
	cmd.Flags().DurationVar(&o.checkpointWait, "checkpoint-wait", 0, "without a terminal: how long (a `duration` such as 10m) to wait for hive answer once only a human can let the run go on, then stop with exit 5 (default: timeouts.checkpoint_wait, 30m; 0 when CI=true)")
	cmd.Flags().BoolVar(&o.rerun, "rerun", false, "start a run even when every plan is complete, to verify the phase again")
	cmd.Flags().BoolVar(&o.allowDirty, "allow-dirty", false, "run although the working tree has uncommitted changes (the agents work from commits and do not see them)")
	addOnLimit(cmd, &o.onLimit)
	cmd.Flags().BoolVar(&o.noTUI, "no-tui", false, "print plain lines instead of the dashboard, even in a terminal")
	o.temporalFlags.add(cmd, o.globalOptions, "where the run is kept and who carries it out: local (this process, .hive/journal.db) or temporal (a Temporal workflow; hive worker processes anywhere carry out its work)")
	o.temporalFlags.addRemote(cmd)
	cmd.Flags().BoolVar(&o.localWorker, "local-worker", true, "backend temporal: also carry out the run's work in this process")
	cmd.Flags().Float64Var(&o.budgetUSD, "budget-usd", 0, "the most a new run may spend, in dollars (default: budget.usd in config; 0: no limit); a run that reaches it stops at a checkpoint: hive answer budget raise|stop")
	return cmd
}

func executeRun(ctx context.Context, o *executeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	repo, cfg, err := openRepoConfig(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	ph, err := onePhase(o.stderr, repo.Root, o.phase)
	if err != nil {
		return err
	}
	// A policy hive does not know is refused before anything is written.
	if _, _, err := runconfig.OnLimit(cfg, o.onLimit); err != nil {
		return err
	}
	j, err := openJournal(repo.Root)
	if err != nil {
		return err
	}
	defer j.Close()
	req := runconfig.Phase{Stderr: o.stderr, Agent: o.agent, Fixed: o.launcher, Yes: o.yes, Fresh: o.fresh, Rerun: o.rerun, AllowDirty: o.allowDirty,
		OnLimit: o.onLimit, Wait: o.checkpointWait, WaitSet: o.checkpointWaitSet, BudgetUSD: o.budgetUSD, BudgetUSDSet: o.budgetUSDSet}
	opts, err := req.Options(ctx, repo, cfg, ph, j)
	if err != nil {
		return err
	}
	launcher, onLimit := opts.Agents.Launcher, opts.Agents.OnLimit
	interactive := !o.json && isTerminal(o.stdin)
	dashboard := interactive && !o.noTUI && isTerminal(o.stdout)
	n := &notify.Notifier{
		// Only a human at a terminal hears a bell or sees the desktop.
		Desktop:    cfg.Notifications.Desktop && interactive,
		WebhookURL: cfg.Notifications.WebhookURL,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(o.stderr, "hive: notification: "+format+"\n", args...)
		},
	}
	defer n.Wait() // the run-finished webhook goes out before hive exits
	links := phasenotify.NewLinks(cfg, repo.Root, func(format string, args ...any) {
		fmt.Fprintf(o.stderr, "hive: "+format+"\n", args...)
	})
	opts.Human.Interactive = interactive
	var res runner.Result
	if dashboard {
		resume := func(s phase.Snapshot) string {
			return o.pasteable(repo.Root, resumeArgs(ph.Number, launcher.Name(), s.AutoAnswer)...)
		}
		res, err = runWithDashboard(ctx, o.stdin, o.stdout, dashboardRun{title: "execute-phase", dir: repo.Root, resume: resume},
			func(ctx context.Context, obs *tui.Observer, answers chan runner.Answer) (runner.Result, error) {
				if cfg.Notifications.Bell {
					n.Bell = func() { obs.Push(tui.BellMsg{}) }
				}
				n.Logf = func(format string, args ...any) { obs.Note("", "notification: "+fmt.Sprintf(format, args...)) }
				opts.Observer = phasenotify.New(obs, n, ph.Number, links, onLimit)
				opts.Human.Answers = answers
				return runner.Run(ctx, opts)
			})
	} else {
		var obs runner.Observer
		if o.json {
			obs = lines.NewPhaseJSON(o.stdout)
		} else {
			plain := lines.NewPhasePrinter(o.stdout)
			plain.AnswerCmd = func(plan string) string { return o.pasteable(repo.Root, "answer", plan, "<response>") }
			if interactive {
				done := make(chan struct{})
				defer close(done)
				plain.Prompter = lines.NewPrompter(o.stdin, done)
				opts.Human.Answers = plain.Prompter.Out
				if cfg.Notifications.Bell && isTerminal(o.stdout) {
					// The runner's goroutine writes both the lines and the bell.
					n.Bell = func() { io.WriteString(o.stdout, "\a") }
				}
			}
			obs = plain
		}
		opts.Observer = phasenotify.New(obs, n, ph.Number, links, onLimit)
		res, err = runner.Run(ctx, opts)
	}
	if e := runconfig.StoppedAtLimit(err, time.Now(), o.pasteable(repo.Root, resumeArgs(ph.Number, launcher.Name(), res.Snapshot.AutoAnswer)...)); e != nil {
		return e
	}
	var paused *runner.PausedError
	if errors.As(err, &paused) {
		msg := "paused: every agent committed its work in progress and stopped"
		if paused.Handoff != "" {
			msg += "\n  the team's handoff: " + paused.Handoff
		}
		msg += "\nresume the run: " + o.pasteable(repo.Root, resumeArgs(ph.Number, launcher.Name(), res.Snapshot.AutoAnswer)...)
		return exit.With(exit.Paused, errors.New(msg))
	}
	var needs *runner.NeedsHumanError
	if errors.As(err, &needs) {
		var b strings.Builder
		b.WriteString("a human must answer before this run can go on:")
		for _, cp := range needs.Checkpoints {
			if cp.Kind == phase.KindBudget {
				fmt.Fprintf(&b, "\n  the run's budget (%s): %s\n    %s", cp.Details, strings.Join(strings.Fields(cp.Awaiting), " "),
					strings.Replace(o.pasteable(repo.Root, "answer", phase.BudgetID, "RESPONSE"), "RESPONSE", "raise|raise N|stop", 1))
				continue
			}
			fmt.Fprintf(&b, "\n  plan %s, %s %s: %s\n    %s", cp.Plan, cp.Kind, cp.Type, strings.Join(strings.Fields(cp.Awaiting), " "),
				o.pasteable(repo.Root, "answer", cp.Plan, "<response>"))
		}
		fmt.Fprintf(&b, "\nthen resume the run: %s", o.pasteable(repo.Root, resumeArgs(ph.Number, launcher.Name(), res.Snapshot.AutoAnswer)...))
		return exit.With(exit.NeedsHuman, errors.New(b.String()))
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return interruptedExit(err, o.pasteable(repo.Root, resumeArgs(ph.Number, launcher.Name(), res.Snapshot.AutoAnswer)...))
	}
	if errors.Is(err, integration.ErrDirty) {
		return exit.With(exit.Usage, err)
	}
	if errors.Is(err, lock.ErrLocked) {
		return exit.With(exit.Busy, err)
	}
	if err != nil {
		return err
	}
	if res.NothingToDo {
		if o.json {
			fmt.Fprintf(o.stdout, "{\"type\":\"nothing-to-do\",\"phase\":%q,\"plans\":%d}\n", ph.Number, len(ph.Plans))
		} else {
			fmt.Fprintf(o.stdout, "phase %s is complete (%d of %d plans have their SUMMARY): nothing to do; `hive execute-phase %s --rerun` verifies it again\n",
				ph.Number, len(ph.Plans), len(ph.Plans), ph.Number)
		}
		return nil
	}
	if !o.json {
		// Re-read the folder: the SUMMARYs written during the run give the one-liners.
		if fresh, err := load.Phase(repo.Root, ph.Dir); err == nil {
			ph = fresh
		}
		if dashboard { // after the dashboard, the report reads as text, not markdown
			renderReport(o.stdout, func(w io.Writer) { lines.Aggregate(w, ph, res.Snapshot, res.Commits) })
		} else {
			lines.Aggregate(o.stdout, ph, res.Snapshot, res.Commits)
		}
	}
	if res.Snapshot.Outcome == phase.OutcomeAborted {
		return exit.Errorf(exit.Failed, "the run was aborted")
	}
	if res.Snapshot.Outcome != phase.OutcomeComplete {
		return exit.Silent(exit.Failed)
	}
	return nil
}

// resumeArgs are the arguments of the command that resumes the run: its
// phase, its agent and its --yes.
func resumeArgs(phase, agentName string, yes bool) []string {
	args := []string{"execute-phase", phase, "--agent", agentName}
	if yes {
		args = append(args, "--yes")
	}
	return args
}
