package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/runworker"
	"github.com/hivectl/hive/internal/temporalhost"
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
					return exit.Errorf(exit.Usage, "hive worker serves Temporal runs: pass --backend temporal")
				}
				switch o.only {
				case "drive":
					o.only = "runs" // its earlier name
				case "", "runs", "plans", "folder":
				default:
					return exit.Errorf(exit.Usage, "--only %q: want runs (the runs: their roles, checks and delivery, their plans elsewhere), plans (the plans of the runs of any clone) or folder (the journal and delivery of this folder's runs with a git remote, their work elsewhere)", o.only)
				}
				return pipelineWorkerRun(cmd.Context(), o)
			}
			if o.only != "" {
				return exit.Errorf(exit.Usage, "--only is for hive run's workers (hive worker --backend temporal --only %s): a phase's worker runs its plans", o.only)
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
		return exit.Errorf(exit.Usage, "hive worker serves Temporal runs: pass --backend temporal")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, _, err := temporalPhase(ctx, o.globalOptions, o.phase, o.agent, o.remote)
	if err != nil {
		return err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	stopWorker, err := runworker.ServePhase(c, o.queue, opts, o.stdout)
	if err != nil {
		return err
	}
	defer stopWorker()
	fmt.Fprintf(o.stdout, "hive worker: phase %s, task queue %s at %s (%s); ctrl-c stops\n", opts.Phase.Number, o.queue, o.address, opts.Agents.Launcher.Name())
	<-ctx.Done()
	return nil
}

// pipelineWorkerRun is hive worker without a phase: it carries out hive
// run's runs of this folder and runs their phases' plans (--only one of
// the two).
func pipelineWorkerRun(ctx context.Context, o *workerOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	repo, err := openRepo(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	s := runworker.Service{Root: repo.Root, Stderr: o.stderr, Agent: o.agent, Queue: o.queue, Remote: o.remote, Roots: temporalhost.NewNames(ctx, repo.Root).Roots, Out: o.stdout,
		Runs: o.only != "plans", Plans: o.only == "", FolderOnly: o.only == "folder"}
	stopWorkers, err := s.Start(c)
	if err != nil {
		return err
	}
	defer stopWorkers()
	fmt.Fprintf(o.stdout, "hive worker: hive run's %s in %s, task queue %s at %s; ctrl-c stops\n", s.What(), repo.Root, strings.Join(s.Queues(), " and "), o.address)
	<-ctx.Done()
	return nil
}
