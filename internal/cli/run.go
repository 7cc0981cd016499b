package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/shellhive"
	"github.com/hivectl/hive/internal/tui"
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

// resumeSettings gives a resume the settings its run started with, from
// the spec in its journal. The run itself keeps its workflow, context
// files, --yes, --no-interview, --evaluate, budget, --no-merge, --push
// and --pr; here, the agent it started with plays its roles again (a
// different --agent is refused, as execute-phase refuses it: the roles
// already played would not be played by the agent that plays the rest),
// and its --checkpoint-wait holds unless this command gives one. A flag
// given here that only a new run takes is said to be ignored.
func resumeSettings(o *runOptions, root string, j journal.Journal) error {
	run, ok, err := piperun.Latest(j)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	if !ok || !run.Finished.IsZero() {
		return nil // nothing to resume: the run says so
	}
	m, err := piperun.Replay(j, run)
	if err != nil {
		return &exitError{code: ExitInternal, err: fmt.Errorf("replay run %d: %w", run.ID, err)}
	}
	spec := m.Snapshot().Spec
	switch {
	case spec.Agent == "" || spec.Agent == o.agent:
	case o.agent == "":
		o.agent = spec.Agent
	default:
		return exitf(ExitUsage, "run %d started with --agent %s, which plays its roles to the end: resume it with %s, or abandon it and start a new run with --fresh --agent %s",
			run.ID, spec.Agent, o.resumeCommand(root), o.agent)
	}
	o.allowDirty = o.allowDirty || spec.AllowDirty
	if !o.waitSet && spec.CheckpointWait != "" {
		if d, err := time.ParseDuration(spec.CheckpointWait); err == nil {
			o.wait, o.waitSet = d, true
		}
	}
	if len(o.newRunFlags) > 0 {
		fmt.Fprintf(o.stderr, "%s: for a new run; run %d goes on with the workflow and context files it started with (hive run --fresh starts a new one)\n",
			strings.Join(o.newRunFlags, ", "), run.ID)
	}
	return nil
}

// takeIssue reads --issue with gh: the run's objective is the issue's
// title unless the command line gave one, and chooseRun gives every role
// the issue's text.
func (o *runOptions) takeIssue(ctx context.Context, root string, cfg *config.Config, objective string) (string, error) {
	gh, err := github.Gh()
	if err != nil {
		return "", exitf(ExitUsage, "--issue: %v", err)
	}
	i, err := github.View(ctx, gh, root, o.issue)
	if err != nil {
		return "", exitf(ExitUsage, "--issue: %v", err)
	}
	o.taken = &i
	fmt.Fprintf(o.stderr, "issue #%d: %s (%s)\n", i.Number, i.Title, i.URL)
	if o.workflow == "" && len(o.roles) == 0 && o.only == "" && !o.plan {
		for _, l := range i.Labels {
			if wf := cfg.GitHub.Labels[l]; wf != "" {
				o.workflow = wf
				fmt.Fprintf(o.stderr, "workflow %s, for the issue's label %s (github.labels in .hive/config.json)\n", wf, l)
				break
			}
		}
	}
	if objective == "" {
		objective = i.Title
	}
	return objective, nil
}

// runChoice is what a new run is to do, settled where it is asked for:
// its workflow of roles (and how it was chosen) and the files every role
// is given.
type runChoice struct {
	Workflow pipeline.Workflow      `json:"workflow"`
	Planning *piperun.Planning      `json:"planning,omitempty"`
	Context  []pipeline.ContextFile `json:"context,omitempty"`
	// Closes is what the run's pull request says of its issue (--issue).
	Closes string `json:"closes,omitempty"`
}

// chooseRun settles a new run's workflow (the flags', the planner's or
// the rules') and reads its context files.
func chooseRun(ctx context.Context, o *runOptions, repo *gitx.Repo, cfg *config.Config, objective string) (runChoice, error) {
	var ch runChoice
	if o.plan && o.workflow == "" && len(o.roles) == 0 && o.only == "" {
		l, err := pickLauncher(o.agent, cfg, pipeline.RolePlanner)
		if err != nil {
			return ch, err
		}
		if err := preflightAgents(ctx, o.stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{pipeline.RolePlanner: l}); err != nil {
			return ch, err
		}
		home, _ := os.UserHomeDir()
		model := ""
		if rungs := ladder(cfg, pipeline.RolePlanner, l.Name()); len(rungs) > 0 {
			model = rungs[len(rungs)-1] // the cheapest
		}
		w, p := piperun.Plan(ctx, piperun.PlanOptions{Repo: repo, Launcher: secretsOf(cfg).wrap(l), Model: model, Home: home, Objective: objective, AllowEnv: cfg.Secrets.Env})
		fmt.Fprintf(o.stderr, "workflow %s (by the %s): %s\n", p.Workflow, p.By, p.Reasoning)
		ch.Workflow, ch.Planning = w, &p
	} else {
		var err error
		if ch.Workflow, err = workflowFor(repo.Root, o, objective); err != nil {
			return ch, &exitError{code: ExitUsage, err: err}
		}
	}
	var err error
	if ch.Context, err = contextFiles(repo.Root, o.context); err != nil {
		return ch, &exitError{code: ExitUsage, err: err}
	}
	if i := o.taken; i != nil {
		ch.Context = append(ch.Context, pipeline.ContextFile{Name: fmt.Sprintf("GitHub issue #%d (%s)", i.Number, i.URL), Text: i.Text()})
		ch.Closes = i.Closes()
	}
	// A repository the shell Hive worked in keeps what it learned;
	// every role gets its conventions and gotchas.
	if mem, ok := shellhive.Memory(repo.Root); ok {
		ch.Context = append(ch.Context, pipeline.ContextFile{Name: ".hive/memory.json (the shell Hive's memory)", Text: mem})
		fmt.Fprintln(o.stderr, "context: the shell Hive's memory (.hive/memory.json): its project facts, conventions and gotchas go to every role")
	}
	return ch, nil
}

// pipelineJournal opens the project's journal of hive run's runs.
// Reports, answers and test output are masked like execute-phase's: a
// secret never reaches the journal.
func pipelineJournal(repo *gitx.Repo, cfg *config.Config) (journal.Journal, func(), error) {
	db, err := journal.Open(filepath.Join(repo.Root, ".hive", "runs.db"))
	if err != nil {
		return nil, nil, &exitError{code: ExitInternal, err: err}
	}
	return journalFaults(journal.Redacting(db, secretsOf(cfg).red)), func() { db.Close() }, nil
}

// pipelineOptions readies a run of the pipeline here (its observer and
// its wait for answers are the caller's): the roles' agents, checked; the
// budget; for a new run its routing and evaluator.
func pipelineOptions(ctx context.Context, o *runOptions, repo *gitx.Repo, cfg *config.Config, objective string, ch runChoice, j journal.Journal) (piperun.Options, error) {
	launchers, ladders, err := roleAgents(o.agent, cfg)
	if err != nil {
		return piperun.Options{}, err
	}
	// The agents of the workflow's roles must be able to start: a resumed
	// run's workflow is the one in its journal (every role's when it
	// cannot be read there).
	wf, every := ch.Workflow, false
	if o.resume && len(wf.Steps) == 0 {
		every = true
		if last, ok, err := piperun.Latest(j); err == nil && ok {
			if m, err := piperun.Replay(j, last); err == nil && m.Started() {
				wf, every = m.Snapshot().Spec.Workflow, false
			}
		}
	}
	used := map[string]agent.Launcher{}
	for role, l := range launchers {
		// A reviewer's high finding may add a security audit (routing).
		if every || wf.Needs(role) || role == pipeline.RoleSecurity && wf.Needs(pipeline.RoleReviewer) {
			used[role] = l
		}
	}
	if o.rolesElsewhere {
		used = nil
	}
	onLimit, fallback, err := o.onLimit.policy(cfg)
	if err != nil {
		return piperun.Options{}, err
	}
	if fallback != nil && used != nil {
		used[config.FallbackRole] = fallback // found missing now, not at the limit
	}
	if err := preflightAgents(ctx, o.stderr, cfg.Secrets.Env, nil, used); err != nil {
		return piperun.Options{}, err
	}
	home, _ := os.UserHomeDir()
	opts := piperun.Options{
		Repo: repo, Journal: j,
		Objective: objective, Workflow: ch.Workflow, Planning: ch.Planning, Resume: o.resume, Answer: o.answer,
		Launcher: launchers[pipeline.RoleImplementer], Roles: launchers, Agent: o.agent, Home: home, AutoAnswer: o.yes, NoInterview: o.noInterview, Context: ch.Context, NoMerge: o.noMerge, AllowDirty: o.allowDirty, Push: o.push, PR: o.pr, Follow: o.follow, PRPoll: o.followPoll,
		WorktreeRoot: worktreeRoot(cfg, repo.Root), MaxConcurrent: cfg.MaxConcurrent(), Stall: cfg.Timeouts.Stall,
		Setup: worktreeSetup(cfg), TestCommand: cfg.Commands.Test, BuildCommand: cfg.Commands.Build, Tools: cfg.Tools,
	}
	opts.Prices, opts.Ladders, opts.Guard = prices(cfg), ladders, loopGuard(cfg)
	// Checked, the agents get the secrets (secrets.env) and have them
	// masked, as execute-phase's do.
	sec := secretsOf(cfg)
	sec.wrapAll(launchers)
	opts.Launcher = launchers[pipeline.RoleImplementer]
	opts.OnLimit, opts.Fallback = onLimit, sec.wrap(fallback)
	opts.Closes = ch.Closes
	if o.waitSet {
		opts.CheckpointWait = o.wait.String()
	}
	// A postmortem model tells the finished run when the config names one;
	// otherwise hive's own paragraph does.
	if _, ok := cfg.Models[pipeline.RolePostmortem]; ok {
		if l, err := pickLauncher(o.agent, cfg, pipeline.RolePostmortem); err == nil {
			opts.Postmortem = sec.wrap(l)
			if rungs := ladder(cfg, pipeline.RolePostmortem, l.Name()); len(rungs) > 0 {
				opts.PostmortemModel = rungs[len(rungs)-1] // the cheapest
			}
		}
	}
	if !o.resume {
		if opts.Routing, err = routing(o, cfg, repo.Root, objective); err != nil {
			return opts, err
		}
		if opts.Routing.Evaluate {
			l, err := pickLauncher(o.agent, cfg, pipeline.RoleEvaluator)
			if err != nil {
				return opts, err
			}
			if err := preflightAgents(ctx, o.stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{pipeline.RoleEvaluator: l}); err != nil {
				return opts, err
			}
			opts.Evaluator = sec.wrap(l)
			if rungs := ladder(cfg, pipeline.RoleEvaluator, l.Name()); len(rungs) > 0 {
				opts.EvaluatorModel = rungs[len(rungs)-1] // the cheapest
			}
		}
	} else if o.evaluate {
		fmt.Fprintln(o.stderr, "--evaluate is for a new run: a resumed run keeps the routing it started with")
	}
	if o.resume && o.yes {
		fmt.Fprintln(o.stderr, "--yes is for a new run: a resumed run keeps the setting it started with; answer its question with --answer or hive answer")
	}
	if o.resume && o.follow {
		fmt.Fprintln(o.stderr, "--follow is for a new run: a resumed run follows its pull request if it started with --follow")
	}
	if o.resume && o.budgetUSDSet {
		fmt.Fprintln(o.stderr, "--budget-usd is for a new run: a resumed run keeps its own budget, raised by answering its budget checkpoint (raise AMOUNT)")
	}
	// The phase's plan ceiling and task estimates hold for a resumed run's
	// phase too; the run's own budget is in its journal.
	b := budget(cfg, opts.Prices, ladders[pipeline.RoleImplementer], func() *pricing.Usage { return taskHistory(repo.Root) }, o.budgetUSD, o.budgetUSDSet)
	opts.PlanUSD, opts.TaskUSD = b.PlanUSD, b.TaskUSD
	if !o.resume {
		if opts.Budget, err = roleBudget(cfg, b, opts.Prices, ladders, func() map[string]pricing.Usage { return roleHistory(j) }); err != nil {
			return opts, &exitError{code: ExitUsage, err: err}
		}
	}
	return opts, nil
}

// runPrinter prints a run's progress: a line per role start and end, per
// challenge, decision and fix loop; or JSON lines.
type runPrinter struct {
	w      io.Writer
	json   bool
	start  time.Time
	prompt bool // a human answers at this terminal
	// wait, when a question waits for hive answer without a terminal, is
	// how long; answer spells the hive answer command of job's question
	// (nil: no question is answered from elsewhere).
	wait   time.Duration
	answer func(job, text string) string
	width  int // of the terminal; 0 for none
	plans  []tui.PlanState
	repo   *gitx.Repo       // to show findings with their code
	clock  func() time.Time // nil: the time now (hive log replays a journal's times)
}

// Plans implements piperun.PlansObserver: the implementers' plans, for
// the pipeline view.
func (p *runPrinter) Plans(states []piperun.PlanState) {
	p.plans = p.plans[:0]
	for _, s := range states {
		p.plans = append(p.plans, tui.PlanState{ID: s.ID, State: s.State})
	}
}

func (p *runPrinter) stamp() string {
	now := time.Now()
	if p.clock != nil {
		now = p.clock()
	}
	return fmt.Sprintf("%6s", now.Sub(p.start).Round(time.Second))
}

func (p *runPrinter) Event(ev pipeline.Event, s pipeline.Snapshot) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"event": ev})
		return
	}
	switch ev.Type {
	case pipeline.EvStarted:
		fmt.Fprintf(p.w, "%s  run: %s (workflow %s)\n", p.stamp(), ev.Spec.Objective, ev.Spec.Workflow.Name)
	case pipeline.EvReport:
		if ev.Report != nil {
			what := ev.Report.Summary
			if what == "" {
				what = ev.Report.Issue + ev.Report.Blocker
			}
			fmt.Fprintf(p.w, "%s  %-17s reported %s: %s\n", p.stamp(), ev.Job, ev.Report.Status, oneLineClip(what, 80))
		}
	case pipeline.EvLinted:
		if len(ev.Errors) == 0 {
			fmt.Fprintf(p.w, "%s  %-17s plans lint clean\n", p.stamp(), "architect")
		}
	case pipeline.EvPhaseDone:
		switch {
		case ev.OK:
			fmt.Fprintf(p.w, "%s  %-17s every plan complete and merged\n", p.stamp(), "implementers")
		case ev.OverBudget:
			fmt.Fprintf(p.w, "%s  %-17s the phase stopped at its share of the budget: %s\n", p.stamp(), "implementers", oneLineClip(ev.Reason, 100))
		default:
			fmt.Fprintf(p.w, "%s  %-17s the phase did not complete: %s\n", p.stamp(), "implementers", oneLineClip(ev.Reason, 100))
		}
	case pipeline.EvTestsRan:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.w, "%s  %-17s skipped: %s (not a pass)\n", p.stamp(), "tests", noTestsText(t))
		default:
			fmt.Fprintf(p.w, "%s  %-17s %s: exit %d, %d passed, %d failed\n", p.stamp(), "tests", t.Command, t.ExitCode, t.Passed, t.Failed)
		}
	case pipeline.EvBuilt:
		switch t := ev.Tests; {
		case t == nil:
		case t.None:
			fmt.Fprintf(p.w, "%s  %-17s skipped: nothing to build (not a pass)\n", p.stamp(), ev.Job)
		default:
			fmt.Fprintf(p.w, "%s  %-17s %s: exit %d\n", p.stamp(), ev.Job, t.Command, t.ExitCode)
		}
	}
}

func (p *runPrinter) Command(c pipeline.Command, s pipeline.Snapshot) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"command": c})
		return
	}
	switch c.Type {
	case pipeline.CmdStartAgent:
		fmt.Fprintf(p.w, "%s  %-17s started (attempt %d)\n", p.stamp(), c.Job, c.Attempt)
	case pipeline.CmdRunPhase:
		fmt.Fprintf(p.w, "%s  %-17s running the architect's plans in parallel\n", p.stamp(), c.Job)
	case pipeline.CmdNote:
		fmt.Fprintf(p.w, "%s  %-17s %s\n", p.stamp(), c.Job, c.Text)
	case pipeline.CmdCheckpoint:
		cp := c.Checkpoint
		fmt.Fprintf(p.w, "%s  %-17s asks: %s (%s)\n", p.stamp(), c.Job, cp.Question, strings.Join(cp.Options, " / "))
		if cp.Details != "" {
			fmt.Fprintf(p.w, "        %s\n", strings.ReplaceAll(strings.TrimSpace(cp.Details), "\n", "\n        "))
		}
		if cp.Kind == pipeline.KindFindings && cp.View {
			fmt.Fprint(p.w, findingsWithCode(context.Background(), p.repo, codeRef(context.Background(), p.repo, s.Spec.Branch), cp.Findings))
		}
		switch {
		case p.answer == nil:
		case p.prompt:
			fmt.Fprintf(p.w, "answer (or %s from another terminal): ", p.answer(c.Job, cp.Example()))
		case p.wait > 0:
			// Without a terminal nobody can answer here: say how, and
			// for how long the run waits.
			fmt.Fprintf(p.w, "        answer from another terminal: %s\n        (the run waits up to %s for it, then stops with exit 5 and says how to go on)\n",
				p.answer(c.Job, cp.Example()), p.wait)
		}
	}
}

func (p *runPrinter) Note(job, text string) {
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"note": text, "job": job})
		return
	}
	fmt.Fprintf(p.w, "%s  %-17s %s\n", p.stamp(), job, text)
}

func (p *runPrinter) result(res piperun.Result) {
	s := res.Snapshot
	if p.json {
		json.NewEncoder(p.w).Encode(map[string]any{"result": map[string]any{"run": res.Run.ID, "outcome": s.Outcome, "branch": res.Branch,
			"merged": res.Merged, "pushed": res.Pushed, "pull_request": res.PullRequest, "undelivered": res.Undelivered, "jobs": s.Jobs, "challenges": s.Challenges, "decisions": s.Decisions, "fix_loops": s.FixLoops,
			"tests": s.Tests, "findings": s.Findings, "notes": res.Notes}})
		return
	}
	fmt.Fprintf(p.w, "\n%s", p.view(s))
	fmt.Fprintf(p.w, "\nrun %d %s\n", res.Run.ID, s.Outcome)
	if len(s.Challenges) > 0 || len(s.Decisions) > 0 || s.FixLoops > 0 {
		fmt.Fprintf(p.w, "  %d challenge(s), %d decision(s), %d fix loop(s)\n", len(s.Challenges), len(s.Decisions), s.FixLoops)
	}
	if t := s.Tests; t != nil && t.None {
		fmt.Fprintf(p.w, "  no test ran: %s; the work is not verified by tests (set commands.test in .hive/config.json)\n", noTestsText(t))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(p.w, "%s\n", n)
	}
}

// noTestsText says why no test ran: the runner found none, or hive
// found no test command.
func noTestsText(t *pipeline.Tests) string {
	if t.Command != "" {
		return t.Command + " found no test"
	}
	return "no tests found"
}

// readAnswers sends each line typed at the terminal.
func readAnswers(r io.Reader, out chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out <- line
		}
	}
}

// view is the pipeline view, styled only on a terminal.
func (p *runPrinter) view(s pipeline.Snapshot) string {
	plans := p.plans
	if len(s.Plans) > 0 {
		plans = plans[:0:0]
		for _, pr := range s.Plans {
			plans = append(plans, tui.PlanState{ID: pr.ID, State: pr.State})
		}
	}
	v := tui.PipelineView(s, plans, max(p.width, 80))
	if p.width == 0 {
		v = ansi.Strip(v)
	}
	return v
}

// runWithPipelineScreen runs the pipeline under its live screen: the
// printer's lines go to the screen's log, every state change redraws the
// view, answers typed there go to the run. The final lines are printed
// once the screen is gone.
func runWithPipelineScreen(ctx context.Context, in io.Reader, out io.Writer, obs *runPrinter, opts piperun.Options) (piperun.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan string)
	m := tui.NewPipeline(answers, cancel)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler())
	screen := &screenObserver{runPrinter: obs, send: p.Send}
	obs.w = lineSender{send: p.Send}
	opts.Observer, opts.Wait, opts.Answers = screen, -1, answers
	type outcome struct {
		res piperun.Result
		err error
	}
	ended := make(chan outcome, 1)
	go func() {
		res, err := piperun.Run(ctx, opts)
		p.Send(tui.FinishedMsg{})
		ended <- outcome{res, err}
	}()
	if _, err := p.Run(); err != nil {
		cancel()
	}
	r := <-ended
	obs.w = out
	return r.res, r.err
}

// screenObserver is the printer whose state changes also redraw the screen.
type screenObserver struct {
	*runPrinter
	send func(tea.Msg)
}

func (o *screenObserver) Event(ev pipeline.Event, s pipeline.Snapshot) {
	o.runPrinter.Event(ev, s)
	o.send(tui.PipelineMsg{Snapshot: s})
}

func (o *screenObserver) Command(c pipeline.Command, s pipeline.Snapshot) {
	o.runPrinter.Command(c, s)
	o.send(tui.PipelineMsg{Snapshot: s})
}

func (o *screenObserver) Plans(states []piperun.PlanState) {
	o.runPrinter.Plans(states)
	o.send(tui.PlansMsg(slices.Clone(o.runPrinter.plans)))
}

// lineSender turns the printer's lines into the screen's log lines.
type lineSender struct{ send func(tea.Msg) }

func (l lineSender) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			l.send(tui.PipelineLogMsg(line))
		}
	}
	return len(b), nil
}

// builtinNames lists the built-in workflows' names.
func builtinNames() string {
	var names []string
	for _, w := range pipeline.Builtins {
		names = append(names, w.Name)
	}
	return strings.Join(names, ", ")
}

// contextFiles reads the files -c names, for every role.
func contextFiles(root string, names []string) ([]pipeline.ContextFile, error) {
	var out []pipeline.ContextFile
	for _, n := range names {
		p := n
		if !filepath.IsAbs(p) {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("-c %s: %w (give a file every role should read)", n, err)
		}
		const most = 64 << 10
		if len(data) > most {
			return nil, fmt.Errorf("-c %s: %d bytes: give a file of at most %d KB (every role reads it whole)", n, len(data), most>>10)
		}
		name := n
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		out = append(out, pipeline.ContextFile{Name: name, Text: string(data)})
	}
	return out, nil
}
