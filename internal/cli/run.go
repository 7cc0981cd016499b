package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/runner"
	"github.com/spf13/cobra"
)

type runOptions struct {
	*globalOptions
	workflow string
	roles    []string
	agent    string
	yes      bool
	json     bool
	resume   bool
	answer   string
	fresh    bool
	noMerge  bool
	// allowDirty runs next to uncommitted changes, as execute-phase's.
	allowDirty bool
	onLimit    onLimitFlag
	push       bool
	pr         bool
	follow     bool
	followPoll time.Duration
	wait       time.Duration
	waitSet    bool
	noTUI      bool
	// budgetUSD overrides budget.usd when set.
	budgetUSD    float64
	budgetUSDSet bool
	noInterview  bool
	only         string
	context      []string
	// issue is --issue: the GitHub issue a new run takes its objective and
	// context from; taken is the issue once read.
	issue string
	taken *github.Issue
	// plan asks the planner (models.planner) which roles to run, when no
	// workflow or roles are named.
	plan bool
	// evaluate judges each role's work (routing.evaluate in config too).
	evaluate bool
	temporalFlags
	localWorker bool
	// newRunFlags are the flags given with --resume that only a new run
	// takes (its workflow, its context): the resumed run keeps its own.
	newRunFlags []string
	// rolesElsewhere: the roles' agents start on the workers that serve
	// the run's sessions (hive run's Temporal driver), so their CLIs are
	// not checked here, where none of them runs.
	rolesElsewhere bool
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
			case o.resume && objective != "":
				return exitf(ExitUsage, "--resume takes no objective: it goes on with the unfinished run's")
			case o.resume && o.issue != "":
				return exitf(ExitUsage, "--resume goes on with the unfinished run's objective: --issue is for a new run")
			case !o.resume && objective == "" && o.issue == "":
				return exitf(ExitUsage, "what should the run do? give the objective: hive run \"add a health check endpoint\", or an issue: hive run --issue 7")
			case o.answer != "" && !o.resume:
				return exitf(ExitUsage, "--answer answers the question of an unfinished run: use it with --resume")
			case o.follow && (o.push || o.noMerge):
				return exitf(ExitUsage, "--follow opens a pull request and follows it: leave out --push and --no-merge")
			case o.follow && o.backend == "temporal":
				return exitf(ExitUsage, "--follow runs with --backend local only, for now: leave out --backend temporal, or use --pr and follow the pull request yourself")
			}
			o.waitSet = cmd.Flags().Changed("checkpoint-wait")
			o.budgetUSDSet = cmd.Flags().Changed("budget-usd")
			if o.resume {
				for _, f := range []string{"workflow", "roles", "only", "plan", "context", "no-interview"} {
					if cmd.Flags().Changed(f) {
						o.newRunFlags = append(o.newRunFlags, "--"+f)
					}
				}
			}
			return runPipeline(cmd.Context(), o, objective)
		},
	}
	cmd.Flags().StringVarP(&o.workflow, "workflow", "w", "", "full (or feature), bugfix, refactor, test, review, quick, docs, migration, minimal, or NAME for .hive/workflows/NAME.json or ~/.hive/workflows/NAME.json (default: picked from the objective, and said)")
	cmd.Flags().StringVar(&o.only, "only", "", "run one role on the objective (e.g. --only reviewer)")
	cmd.Flags().BoolVar(&o.plan, "plan", false, "ask the planner (a cheap model: models.planner, on its ladder's last rung) which roles the objective needs; -w and --roles win over it; an answer that will not do falls back to the rules")
	cmd.Flags().BoolVar(&o.evaluate, "evaluate", false, "after each role, hive's own checks and three evaluators (completeness, coherence, risk; a cheap model: models.evaluator) judge its work; warnings go to the next role, a block runs the role again, then asks you (routing.evaluate in config)")
	cmd.Flags().StringArrayVarP(&o.context, "context", "c", nil, "a file given to every role (repeatable)")
	cmd.Flags().StringVar(&o.issue, "issue", "", "take the objective (the issue's title, unless one is given) and context (its body, labels and comments) from a GitHub issue, read with gh: its number or address; the pull request (--pr) closes it")
	cmd.Flags().StringSliceVar(&o.roles, "roles", nil, "the roles to run, in order, instead of a workflow (e.g. implementer,tester)")
	cmd.Flags().StringVar(&o.agent, "agent", "", "the agent that plays every role: claude, codex, aider, exec or sim (default: models.executor.cli in config, else claude)")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "take the default of a role's question; second challenges and tests that still fail still stop for you")
	cmd.Flags().BoolVar(&o.yes, "auto", false, "the same as --yes (the shell Hive's name)")
	cmd.Flags().BoolVar(&o.noInterview, "no-interview", false, "no interviewer: the objective is taken as written (--yes too)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event, then the result")
	cmd.Flags().BoolVar(&o.resume, "resume", false, "go on with the unfinished run")
	cmd.Flags().StringVar(&o.answer, "answer", "", "with --resume: the answer to the question the run stopped at")
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "abandon the unfinished run (its branch stays) and start a new one")
	cmd.Flags().BoolVar(&o.noMerge, "no-merge", false, "leave the finished run's work on its branch")
	cmd.Flags().BoolVar(&o.allowDirty, "allow-dirty", false, "run although the working tree has uncommitted changes (the agents work from commits and do not see them; the work is merged only if it touches none of them, else it stays on its branch: exit 7)")
	cmd.Flags().BoolVar(&o.push, "push", false, "push the completed run's branch to origin instead of merging it")
	cmd.Flags().BoolVar(&o.pr, "pr", false, "push the completed run's branch and open a pull request with gh (installed and logged in), instead of merging it")
	cmd.Flags().BoolVar(&o.follow, "follow", false, "--pr, then follow the pull request until it is merged or closed: failed CI checks and review comments go to the implementer, whose fixes hive pushes")
	cmd.Flags().DurationVar(&o.followPoll, "follow-every", 30*time.Second, "with --follow: how often the pull request's checks and comments are read (a `duration`)")
	cmd.Flags().BoolVar(&o.noTUI, "no-tui", false, "print plain lines instead of the live pipeline screen, even in a terminal")
	cmd.Flags().Float64Var(&o.budgetUSD, "budget-usd", 0, "the most the run may spend, in dollars (default: budget.usd in config; 0: no limit)")
	o.temporalFlags.add(cmd, o.globalOptions, "where the run is kept: local (the journal in .hive) or temporal (a workflow on a Temporal server, driven by hive worker processes in this folder)")
	o.temporalFlags.addRemote(cmd)
	cmd.Flags().BoolVar(&o.localWorker, "local-worker", true, "backend temporal: also drive the run in this process")
	o.onLimit.add(cmd)
	cmd.Flags().DurationVar(&o.wait, "checkpoint-wait", 0, "without a terminal: how long (a `duration` such as 10m) a question waits for hive answer ROLE ..., then the run stops with exit 5 (default: timeouts.checkpoint_wait, 30m; 0 when CI=true)")
	return cmd
}

var workflowName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// workflowFor reads the workflow the flags ask for.
func workflowFor(root string, o *runOptions, objective string) (pipeline.Workflow, error) {
	if o.only != "" {
		o.roles = []string{o.only}
	}
	if len(o.roles) > 0 {
		w := pipeline.Workflow{Name: "custom"}
		for _, r := range o.roles {
			w.Steps = append(w.Steps, pipeline.Step{Role: strings.TrimSpace(r)})
		}
		return w, w.Validate("--roles")
	}
	if o.workflow == "" {
		w, why := pipeline.Pick(objective)
		fmt.Fprintf(o.stderr, "workflow %s: %s (name another with -w)\n", w.Name, why)
		return w, nil
	}
	if !workflowName.MatchString(o.workflow) {
		return pipeline.Workflow{}, fmt.Errorf("workflow name %q: use letters, digits, - and _ (the file is .hive/workflows/NAME.json)", o.workflow)
	}
	// The project's file of that name wins over the user's, and both
	// over a built-in workflow.
	rel := filepath.Join(".hive", "workflows", o.workflow+".json")
	data, err := os.ReadFile(filepath.Join(root, rel))
	if home, herr := os.UserHomeDir(); errors.Is(err, os.ErrNotExist) && herr == nil {
		if d, gerr := os.ReadFile(filepath.Join(home, rel)); gerr == nil {
			data, err, rel = d, nil, filepath.Join("~", rel)
		}
	}
	if errors.Is(err, os.ErrNotExist) {
		if w, ok := pipeline.Builtin(o.workflow); ok {
			return w, nil
		}
		return pipeline.Workflow{}, fmt.Errorf("no workflow %q: use one of %s, or write %s (hive workflows lists them)", o.workflow, builtinNames(), rel)
	}
	if err != nil {
		return pipeline.Workflow{}, err
	}
	return pipeline.ParseWorkflow(rel, data)
}

func runPipeline(ctx context.Context, o *runOptions, objective string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	repo, cfg, err := openRepoConfig(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	if o.issue != "" {
		if objective, err = o.takeIssue(ctx, repo.Root, cfg, objective); err != nil {
			return err
		}
	}
	if o.backend == "temporal" {
		return runTemporal(ctx, o, repo, cfg, objective)
	}
	var choice runChoice
	if !o.resume {
		if err := o.checkTree(ctx, repo); err != nil {
			return err
		}
		if choice, err = chooseRun(ctx, o, repo, cfg, objective); err != nil {
			return err
		}
	}
	j, closeJournal, err := pipelineJournal(repo, cfg)
	if err != nil {
		return err
	}
	defer closeJournal()
	if o.resume {
		if err := resumeSettings(o, repo.Root, j); err != nil {
			return err
		}
		if err := o.checkTree(ctx, repo); err != nil {
			return err
		}
	}
	if o.fresh {
		if pid, live := runner.PipelineHolder(repo.Root); live {
			return exitf(ExitBusy, "hive pid %d is driving the unfinished run now: stop it first (Ctrl-C there, or kill %d), then hive run --fresh", pid, pid)
		}
		if run, ok, err := piperun.Abandon(j, time.Now()); err != nil {
			return &exitError{code: ExitInternal, err: err}
		} else if ok {
			fmt.Fprintf(o.stderr, "run %d abandoned; its work stays on branch %s\n", run.ID, piperun.RunBranch(j, run))
		}
	}
	opts, err := pipelineOptions(ctx, o, repo, cfg, objective, choice, j)
	if err != nil {
		return err
	}
	obs := &runPrinter{w: o.stdout, json: o.json, start: time.Now(), width: terminalWidth(o.stdout), repo: repo, answer: o.answerCommand(repo.Root)}
	opts.Observer = obs
	// At a terminal a question waits for the answer typed there (or given
	// with hive answer); without one, for hive answer, checkpoint_wait long.
	opts.Wait = checkpointWait(cfg, o.waitSet, o.wait)
	var res piperun.Result
	switch interactive := !o.json && isTerminal(o.stdin); {
	case interactive && !o.noTUI && isTerminal(o.stdout):
		res, err = runWithPipelineScreen(ctx, o.stdin, o.stdout, obs, opts)
	case interactive:
		answers := make(chan string)
		opts.Wait, opts.Answers, obs.prompt = -1, answers, true
		go readAnswers(o.stdin, answers)
		res, err = piperun.Run(ctx, opts)
	default:
		obs.wait = opts.Wait
		res, err = piperun.Run(ctx, opts)
	}
	if err := o.runExit(ctx, repo.Root, err); err != nil {
		return err
	}
	obs.result(res)
	return resultExit(res)
}

// resultExit is the exit of a run that ended with res: a run that did
// not complete failed; a complete one whose work did not reach the
// user's branch (or origin) as meant is told apart from one whose did.
func resultExit(res piperun.Result) error {
	switch {
	case res.Snapshot.Outcome != pipeline.OutcomeComplete:
		return silentExit(ExitFailed)
	case res.Undelivered != "":
		return silentExit(ExitUndelivered)
	}
	return nil
}

// checkTree applies execute-phase's rule to the user's working tree: a
// run starts (or resumes) next to no uncommitted change, which its agents,
// working from commits, would not see, and which its merge must not
// touch; unless --allow-dirty, then said. hive's own folder is kept out
// of git first.
func (o *runOptions) checkTree(ctx context.Context, repo *gitx.Repo) error {
	if err := repo.Exclude(ctx, "/.hive/"); err != nil {
		return &exitError{code: ExitInternal, err: fmt.Errorf("keep hive's files out of git: %w", err)}
	}
	err := runner.CheckClean(ctx, repo)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, runner.ErrDirty):
		return &exitError{code: ExitInternal, err: err}
	case o.allowDirty:
		fmt.Fprintln(o.stderr, "running with uncommitted changes (--allow-dirty): the agents work from your last commit and do not see them; the work is merged only if it touches none of them")
		return nil
	}
	return &exitError{code: ExitUsage, err: err}
}

// runExit is the exit of a run in the repository at root that ended with
// err, with the command that goes on, ready to paste.
func (o *runOptions) runExit(ctx context.Context, root string, err error) error {
	var needs *piperun.NeedsHumanError
	var unfinished *piperun.UnfinishedError
	var answer *piperun.AnswerError
	if e := stoppedAtLimit(err, time.Now(), o.resumeCommand(root)); e != nil {
		return e
	}
	switch {
	case errors.As(err, &needs):
		return exitf(ExitNeedsHuman, "%v\ngo on with your answer: %s", err, o.resumeCommand(root, "--answer", needs.Checkpoint.Example()))
	case errors.Is(err, runner.ErrLocked):
		return &exitError{code: ExitBusy, err: err}
	case errors.As(err, &unfinished):
		return exitf(ExitUsage, "%v: resume it with %s, or abandon it with %s", err, o.resumeCommand(root), o.pasteable(root, "run", "--fresh", "the new objective"))
	case errors.As(err, &answer), errors.Is(err, piperun.ErrNoRun):
		return &exitError{code: ExitUsage, err: err}
	case errors.Is(err, piperun.ErrInterrupted), err != nil && ctx.Err() != nil:
		return exitf(ExitInterrupted, "%v: resume it with %s", err, o.resumeCommand(root))
	case err != nil:
		return &exitError{code: ExitInternal, err: err}
	}
	return nil
}

// answerCommand spells the command that answers a question of the run in
// the repository at root, ready to paste.
func (o *runOptions) answerCommand(root string) func(job, text string) string {
	return func(job, text string) string { return o.pasteable(root, "answer", job, text) }
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
