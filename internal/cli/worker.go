package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
)

type workerOptions struct {
	*globalOptions
	temporalFlags
	phase string
	agent string
	only  string // hive run's workers: "runs", "plans" or "folder"; "" for all
}

func newWorkerCmd(g *globalOptions) *cobra.Command {
	o := &workerOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "worker [PHASE] --backend temporal",
		Short: "Carry out the work of Temporal runs here, beside other workers: a phase's agent sessions, or hive run's runs",
		Long: `worker polls a Temporal task queue and carries out the work there.

With PHASE it serves that phase's runs (started with hive execute-phase
--backend temporal): agent sessions (the plans' executors, the resolvers
of merge conflicts, the phase's verifier) in this repository's working
tree, or with --git-remote in worktrees of its own clone, their
spot-checks, and with --git-remote the merges into the run's integration
branch; a worker removes merged plans' worktrees from its clone.
Start as many as the machines hold; a worker that dies is noticed within
its heartbeat timeout and its plan goes on elsewhere.

Without PHASE it serves hive run's runs started in this folder (hive run
--backend temporal, on the folder's task queue QUEUE-run-…): each run's
pipeline machine is the code of its Temporal workflow, and the worker
carries out its commands here, in the run's worktree: the roles' sessions
(the architect's, the tester's, …), the lint, the tests and the build, the
evaluations, and the delivery into your branch. A worker that dies is
noticed within its heartbeat timeout: its role starts again on another
worker (told it was cut off), its checks run again, and its phase goes on
where it was. The runs' implementers' phases are workflows of their own,
whose plans every such worker runs (task queue QUEUE-plans): in the run's
worktree, which the workers then share, or, for a run started with
--git-remote, in worktrees of this clone, wherever it is (--git-remote
here names the remote in this clone when it is not called as in the
run's). A run with --git-remote is the work of the workers of every clone
(the repository's queue QUEUE-run-…-repo): each command in a worktree of
the worker's clone, made from the run's branch on the remote
(hive/run-N-…/run), its commits pushed there; only its journal and its
delivery stay with the workers of its folder. --only runs, --only plans
or --only folder (the journal and delivery alone) serves one part.
Stop it with ctrl-c.`,
		Example: `  hive worker 1 --backend temporal --agent sim
  hive worker 01-core-library --backend temporal --temporal-address 10.0.0.5:7233
  hive worker --backend temporal --agent claude
  hive worker --backend temporal --only plans    # in a clone on another machine, for runs with --git-remote`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if o.backend != "temporal" {
					return exitf(ExitUsage, "hive worker serves Temporal runs: pass --backend temporal")
				}
				switch o.only {
				case "drive":
					o.only = "runs" // its earlier name
				case "", "runs", "plans", "folder":
				default:
					return exitf(ExitUsage, "--only %q: want runs (the runs: their roles, checks and delivery, their plans elsewhere), plans (the plans of the runs of any clone) or folder (the journal and delivery of this folder's runs with a git remote, their work elsewhere)", o.only)
				}
				return pipelineWorkerRun(cmd.Context(), o)
			}
			if o.only != "" {
				return exitf(ExitUsage, "--only is for hive run's workers (hive worker --backend temporal --only %s): a phase's worker runs its plans", o.only)
			}
			o.phase = args[0]
			return workerRun(cmd.Context(), o)
		},
	}
	o.temporalFlags.add(cmd, o.globalOptions, "where runs are kept: temporal (the only backend a worker serves)")
	o.temporalFlags.addRemote(cmd)
	cmd.Flags().StringVar(&o.only, "only", "", "without PHASE: serve only hive run's runs (runs: their roles, checks and delivery), the plans of any clone's runs (plans), or this folder's journals and deliveries (folder)")
	cmd.Flags().StringVar(&o.agent, "agent", "", "the agent to run plans with: claude, codex, aider, exec or sim (default: models.executor.cli in config, else claude)")
	return cmd
}

func workerRun(ctx context.Context, o *workerOptions) error {
	if o.backend != "temporal" {
		return exitf(ExitUsage, "hive worker serves Temporal runs: pass --backend temporal")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	tw, err := temporalWork(ctx, o.globalOptions, o.phase, o.agent, o.remote)
	if err != nil {
		return err
	}
	ph, opts := tw.phase, tw.opts
	opts.Observer = workerNotes{o.stdout}
	runs, err := runner.NewWorker(opts)
	if err != nil {
		return exitf(ExitUsage, "%v", err)
	}
	defer runs.Close()
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	w := temporal.NewWorkers(c, o.queue, announced{runs, o.stdout}, worker.Options{})
	if err := w.Start(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer w.Stop()
	fmt.Fprintf(o.stdout, "hive worker: phase %s, task queue %s at %s (%s); ctrl-c stops\n", ph.Number, o.queue, o.address, opts.Agents.Launcher.Name())
	<-ctx.Done()
	return nil
}

// temporalRun is the work of a Temporal run of a phase here: the
// project's configuration, the phase and the runner's options.
type temporalRun struct {
	cfg   *config.Config
	phase *plan.Phase
	opts  runner.Options
}

// temporalWork readies the work of a Temporal run of phase in the
// repository: the configured executor agent (checked, its secrets kept out
// of its logs); the shared tree, or with remote a worktree per plan, shared
// through that git remote.
func temporalWork(ctx context.Context, g *globalOptions, phase, agentName, remote string) (temporalRun, error) {
	repo, cfg, err := openRepoConfig(ctx, g)
	if err != nil {
		return temporalRun{}, err
	}
	ph, err := onePhase(g.stderr, repo.Root, phase)
	if err != nil {
		return temporalRun{}, err
	}
	launcher, err := pickLauncher(agentName, cfg, "executor")
	if err != nil {
		return temporalRun{}, err
	}
	roles, err := phaseRoles(agentName, cfg, nil)
	if err != nil {
		return temporalRun{}, err
	}
	if err := preflightAgents(ctx, g.stderr, cfg.Secrets.Env, launcher, roles); err != nil {
		return temporalRun{}, err
	}
	sec := secretsOf(cfg)
	sec.wrapAll(roles)
	// The agent a run switched by a usage limit starts (limits.on_limit
	// fallback), where this worker's config names one.
	var fallback agent.Launcher
	if _, ok := cfg.Models[config.FallbackRole]; ok {
		l, err := pickLauncher("", cfg, config.FallbackRole)
		if err != nil {
			return temporalRun{}, err
		}
		fallback = sec.wrap(l)
	}
	tab := prices(cfg)
	var git runner.Git
	if remote != "" {
		git = runner.Git{
			Remote:       remote,
			Worktrees:    true,
			WorktreeRoot: worktreeRoot(cfg, repo.Root),
			Branching:    cfg.Git.BranchingStrategy,
			Setup:        worktreeSetup(cfg),
			GateCommand:  cfg.Gates.PostMergeCommand,
		}
	}
	return temporalRun{cfg: cfg, phase: ph, opts: runner.Options{
		Git:      git,
		Repo:     repo,
		Phase:    ph,
		Schedule: runner.Schedule{MaxConcurrent: cfg.MaxConcurrent(), Dynamic: cfg.Dynamic(), Verify: cfg.Workflow.Verifier},
		Agents: runner.Agents{
			Launcher: sec.wrap(launcher),
			Roles:    roles,
			Team:     cfg.TeamMode(),
			Stall:    cfg.Timeouts.Stall,
			Retries:  cfg.Retries.Agent,
			Prices:   tab,
			Ladder:   ladder(cfg, "executor", launcher.Name()),
			Fallback: fallback,
		},
	}}, nil
}

// workerNotes prints what a worker has to say; the run's events are the
// workflow's, shown by execute-phase.
type workerNotes struct{ w io.Writer }

func (workerNotes) Resumed(journal.Run, engine.Snapshot)    {}
func (workerNotes) Event(engine.Event, engine.Snapshot)     {}
func (workerNotes) Command(engine.Command, engine.Snapshot) {}
func (n workerNotes) Note(plan, text string) {
	fmt.Fprintf(n.w, "hive worker: %s %s\n", plan, text)
}

// announced says on a worker's output when an agent session of a plan
// starts and ends here: which worker runs what is the worker's to tell.
type announced struct {
	temporal.Executor
	w io.Writer
}

func (a announced) Execute(ctx context.Context, c engine.Command, since string, snap engine.Snapshot, emit func(engine.Event)) ([]engine.Event, error) {
	if c.Type != engine.CmdStartAgent {
		return a.Executor.Execute(ctx, c, since, snap, emit)
	}
	fmt.Fprintf(a.w, "hive worker: %s attempt %d runs here\n", c.Plan, c.Attempt)
	evs, err := a.Executor.Execute(ctx, c, since, snap, emit)
	how := "ended"
	for _, ev := range evs {
		if ev.Type == engine.EvAgentExited && ev.Reason != "" {
			how = "ended: " + ev.Reason
		}
	}
	if err != nil {
		how = "ended: " + err.Error()
	}
	fmt.Fprintf(a.w, "hive worker: %s attempt %d %s\n", c.Plan, c.Attempt, how)
	return evs, err
}
