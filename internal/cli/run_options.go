package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/shellhive"
)

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
