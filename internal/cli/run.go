package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/lines"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/temporalhost"
	"github.com/spf13/cobra"
)

type runOptions struct {
	*globalOptions
	// Run is what the flags ask of the run, the value the hosts take.
	runconfig.Run
	// issue is --issue, read into Run.Issue.
	issue string
	json  bool
	noTUI bool
	temporalFlags
	localWorker bool
}

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   `run "OBJECTIVE"`,
		Short: "Hand an objective to a pipeline of roles: architect, implementers in parallel, comb, tester, reviewer, documenter",
		Long: `Hand an objective to a pipeline of roles that challenge each other and fix what fails.

The full workflow: the architect writes a phase of plans (hive lints them), the
implementers run them in parallel worktrees (hive merges them), the comb checks
the merged result, the tester tests it (hive runs the project's tests; failures
go back to an implementer, twice, then to you), the reviewer reviews and the
documenter documents. A role may challenge an earlier one: the challenged role
runs again with the challenge, then the challenger checks again; a second
challenge of the same handoff is yours to decide.

The run works on its own branch, hive/WORKFLOW/SLUG (hive/quick/add-a-health-check
for "add a health check" with -w quick), in a worktree of its own: your tree and
branch are untouched until it finishes; then its work is merged into your branch
(fast-forward when possible). It stays on its branch, with the commands to merge
or publish it, when the run did not complete, with --no-merge, or when merging
would touch your uncommitted changes (hive never stashes them). --push pushes
the branch to origin instead; --pr also opens a pull request with gh, the
objective its title and the run's report its description.

--follow opens the pull request and follows it until it is merged or closed:
a CI check that fails on its head commit (with the failing part of its log)
and each open review comment go to the implementer, whose fix hive pushes; hive
answers each comment on its thread. A failure of an older commit, a resolved or
outdated comment, or a thread hive answered with nothing new is never routed.
After the workflow's fix loops (fix_loops, 2) you decide, with the last
failure; the budget bounds the fixes as it does every role. A merged pull
request completes the run; a closed one ends it aborted.

A run starts from a clean working tree, as execute-phase does: an uncommitted
change (an untracked file too) is refused, since the roles work from your
commits and would not see it; --allow-dirty runs next to it. Completed work
that could not be merged (or pushed) ends with exit 7, "undelivered" in --json.

The architect's plans are the run's, not your project's: they are kept in
.hive/runs/N/phase, and never reach your .planning.

--resume goes on with the run as it started: its agent, workflow, context
files, --yes, --no-interview, --evaluate, budget, --no-merge, --push, --pr,
--allow-dirty and --checkpoint-wait are in its journal. A different --agent
is refused; flags only a new run takes are ignored, with a note; --no-merge,
--push, --pr and --checkpoint-wait given again win. Every command hive prints
to go on works as printed.

Workflows: full, quick (implementer, tester), or .hive/workflows/NAME.json
({"name": "...", "steps": [{"role": "implementer"}, ...], "fix_loops": 2}).
Role prompts: see hive agents.`,
		Example: `  hive run "add a health check endpoint" --agent sim --yes
  hive run "fix the typo in the README" --workflow quick
  hive run "add rate limiting" --pr
  hive run --issue 7 --follow
  hive run "add OAuth login" --roles architect,implementer,tester,reviewer
  hive run --resume --answer override`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			objective := ""
			if len(args) == 1 {
				objective = strings.TrimSpace(args[0])
			}
			switch {
			case o.Resume && objective != "":
				return exit.Errorf(exit.Usage, "--resume takes no objective: it goes on with the unfinished run's")
			case o.Resume && o.issue != "":
				return exit.Errorf(exit.Usage, "--resume goes on with the unfinished run's objective: --issue is for a new run")
			case !o.Resume && objective == "" && o.issue == "":
				return exit.Errorf(exit.Usage, "what should the run do? give the objective: hive run \"add a health check endpoint\", or an issue: hive run --issue 7")
			case o.Answer != "" && !o.Resume:
				return exit.Errorf(exit.Usage, "--answer answers the question of an unfinished run: use it with --resume")
			case o.Follow && (o.Push || o.NoMerge):
				return exit.Errorf(exit.Usage, "--follow opens a pull request and follows it: leave out --push and --no-merge")
			case o.Follow && o.backend == "temporal":
				return exit.Errorf(exit.Usage, "--follow runs with --backend local only, for now: leave out --backend temporal, or use --pr and follow the pull request yourself")
			}
			o.WaitSet = cmd.Flags().Changed("checkpoint-wait")
			o.BudgetUSDSet = cmd.Flags().Changed("budget-usd")
			if o.Resume {
				for _, f := range []string{"workflow", "roles", "only", "plan", "context", "no-interview"} {
					if cmd.Flags().Changed(f) {
						o.NewRunFlags = append(o.NewRunFlags, "--"+f)
					}
				}
			}
			return runPipeline(cmd.Context(), o, objective)
		},
	}
	cmd.Flags().StringVarP(&o.Workflow, "workflow", "w", "", "full (or feature), bugfix, refactor, test, review, quick, docs, migration, minimal, or NAME for .hive/workflows/NAME.json or ~/.hive/workflows/NAME.json (default: picked from the objective, and said)")
	cmd.Flags().StringVar(&o.Only, "only", "", "run one role on the objective (e.g. --only reviewer)")
	cmd.Flags().BoolVar(&o.Plan, "plan", false, "ask the planner (a cheap model: models.planner, on its ladder's last rung) which roles the objective needs; -w and --roles win over it; an answer that will not do falls back to the rules")
	cmd.Flags().BoolVar(&o.Evaluate, "evaluate", false, "after each role, hive's own checks and three evaluators (completeness, coherence, risk; a cheap model: models.evaluator) judge its work; warnings go to the next role, a block runs the role again, then asks you (routing.evaluate in config)")
	cmd.Flags().StringArrayVarP(&o.Context, "context", "c", nil, "a file given to every role (repeatable)")
	cmd.Flags().StringVar(&o.issue, "issue", "", "take the objective (the issue's title, unless one is given) and context (its body, labels and comments) from a GitHub issue, read with gh: its number or address; the pull request (--pr) closes it")
	cmd.Flags().StringSliceVar(&o.Roles, "roles", nil, "the roles to run, in order, instead of a workflow (e.g. implementer,tester)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "the agent that plays every role: claude, codex, aider, exec or sim (default: models.executor.cli in config, else claude)")
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "take the default of a role's question; second challenges and tests that still fail still stop for you")
	cmd.Flags().BoolVar(&o.Yes, "auto", false, "the same as --yes (the shell Hive's name)")
	cmd.Flags().BoolVar(&o.NoInterview, "no-interview", false, "no interviewer: the objective is taken as written (--yes too)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event, then the result")
	cmd.Flags().BoolVar(&o.Resume, "resume", false, "go on with the unfinished run")
	cmd.Flags().StringVar(&o.Answer, "answer", "", "with --resume: the answer to the question the run stopped at")
	cmd.Flags().BoolVar(&o.Fresh, "fresh", false, "abandon the unfinished run (its branch stays) and start a new one")
	cmd.Flags().BoolVar(&o.NoMerge, "no-merge", false, "leave the finished run's work on its branch")
	cmd.Flags().BoolVar(&o.AllowDirty, "allow-dirty", false, "run although the working tree has uncommitted changes (the agents work from commits and do not see them; the work is merged only if it touches none of them, else it stays on its branch: exit 7)")
	cmd.Flags().BoolVar(&o.Push, "push", false, "push the completed run's branch to origin instead of merging it")
	cmd.Flags().BoolVar(&o.PR, "pr", false, "push the completed run's branch and open a pull request with gh (installed and logged in), instead of merging it")
	cmd.Flags().BoolVar(&o.Follow, "follow", false, "--pr, then follow the pull request until it is merged or closed: failed CI checks and review comments go to the implementer, whose fixes hive pushes")
	cmd.Flags().DurationVar(&o.FollowPoll, "follow-every", 30*time.Second, "with --follow: how often the pull request's checks and comments are read (a `duration`)")
	cmd.Flags().BoolVar(&o.noTUI, "no-tui", false, "print plain lines instead of the live pipeline screen, even in a terminal")
	cmd.Flags().Float64Var(&o.BudgetUSD, "budget-usd", 0, "the most the run may spend, in dollars (default: budget.usd in config; 0: no limit)")
	o.temporalFlags.add(cmd, o.globalOptions, "where the run is kept: local (the journal in .hive) or temporal (a workflow on a Temporal server, driven by hive worker processes in this folder)")
	o.temporalFlags.addRemote(cmd)
	cmd.Flags().BoolVar(&o.localWorker, "local-worker", true, "backend temporal: also drive the run in this process")
	addOnLimit(cmd, &o.OnLimit)
	cmd.Flags().DurationVar(&o.Wait, "checkpoint-wait", 0, "without a terminal: how long (a `duration` such as 10m) a question waits for hive answer ROLE ..., then the run stops with exit 5 (default: timeouts.checkpoint_wait, 30m; 0 when CI=true)")
	return cmd
}

func runPipeline(ctx context.Context, o *runOptions, objective string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Stderr = o.stderr
	repo, cfg, err := openRepoConfig(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	if o.issue != "" {
		if objective, err = o.TakeIssue(ctx, repo.Root, cfg, o.issue, objective); err != nil {
			return err
		}
	}
	if o.backend == "temporal" {
		return temporalhost.Start(ctx, o.onTemporal(repo), repo, cfg, objective)
	}
	var choice runconfig.Choice
	if !o.Resume {
		if err := o.CheckTree(ctx, repo); err != nil {
			return err
		}
		if choice, err = o.Choose(ctx, repo, cfg, objective); err != nil {
			return err
		}
	}
	j, closeJournal, err := runconfig.Journal(repo, cfg)
	if err != nil {
		return err
	}
	defer closeJournal()
	if o.Resume {
		if err := o.ResumeSettings(repo.Root, j, o.resumeCommand(repo.Root)); err != nil {
			return err
		}
		if err := o.CheckTree(ctx, repo); err != nil {
			return err
		}
	}
	if o.Fresh {
		if pid, live := lock.PipelineHolder(repo.Root); live {
			return exit.Errorf(exit.Busy, "hive pid %d is driving the unfinished run now: stop it first (Ctrl-C there, or kill %d), then hive run --fresh", pid, pid)
		}
		if run, ok, err := runjournal.Abandon(j, time.Now()); err != nil {
			return exit.With(exit.Internal, err)
		} else if ok {
			fmt.Fprintf(o.stderr, "run %d abandoned; its work stays on branch %s\n", run.ID, runjournal.RunBranch(j, run))
		}
	}
	opts, err := o.Options(ctx, repo, cfg, objective, choice, j)
	if err != nil {
		return err
	}
	obs := &lines.RunPrinter{W: o.stdout, JSON: o.json, Start: time.Now(), Width: terminalWidth(o.stdout), Repo: repo, Answer: o.commands(repo.Root).Answer}
	opts.Observer = obs
	// At a terminal a question waits for the answer typed there (or given
	// with hive answer); without one, for hive answer, checkpoint_wait long.
	opts.Wait = runconfig.CheckpointWait(cfg, o.WaitSet, o.Wait)
	var res piperun.Result
	switch interactive := !o.json && isTerminal(o.stdin); {
	case interactive && !o.noTUI && isTerminal(o.stdout):
		res, err = runWithPipelineScreen(ctx, o.stdin, o.stdout, obs, opts)
	case interactive:
		answers := make(chan string)
		opts.Wait, opts.Answers, obs.Prompt = -1, answers, true
		go lines.ReadAnswers(o.stdin, answers)
		res, err = piperun.Run(ctx, opts)
	default:
		obs.Wait = opts.Wait
		res, err = piperun.Run(ctx, opts)
	}
	if err := runconfig.Exit(ctx, err, o.commands(repo.Root)); err != nil {
		return err
	}
	obs.Result(res)
	return runconfig.ResultExit(res)
}

// onTemporal is the run o asks for on Temporal, shown here as a local
// run is.
func (o *runOptions) onTemporal(repo *gitx.Repo) *temporalhost.Run {
	return &temporalhost.Run{Run: &o.Run, Dial: o.dial, Address: o.address, Namespace: o.namespace, Queue: o.queue, Remote: o.remote,
		LocalWorker: o.localWorker, Commands: o.commands(repo.Root),
		Follow: func(wait time.Duration) (temporalhost.Follower, <-chan string) {
			obs := &lines.RunPrinter{W: o.stdout, JSON: o.json, Start: time.Now(), Width: terminalWidth(o.stdout), Repo: repo, Answer: o.commands(repo.Root).Answer}
			if !o.json && isTerminal(o.stdin) {
				answers := make(chan string)
				obs.Prompt = true
				go lines.ReadAnswers(o.stdin, answers)
				return obs, answers
			}
			obs.Wait = wait
			return obs, nil
		}}
}

// commands spell the commands that go on with the run in the repository
// at root, ready to paste.
func (o *runOptions) commands(root string) runconfig.Commands {
	return runconfig.Commands{
		Resume: func(args ...string) string { return o.resumeCommand(root, args...) },
		Answer: func(job, text string) string { return o.pasteable(root, "answer", job, text) },
		Fresh:  o.pasteable(root, "run", "--fresh", "the new objective"),
	}
}

// resumeCommand is the command that resumes the project's unfinished run,
// ready to paste: the run's agent, workflow and flags are in its journal.
// args follow --resume (--answer TEXT).
func (o *runOptions) resumeCommand(root string, args ...string) string {
	words := []string{"run", "--resume"}
	if o.backend == "temporal" {
		words = append(words, "--backend", "temporal")
	}
	return o.pasteable(root, append(words, args...)...)
}
