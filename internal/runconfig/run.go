package runconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/planner"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/shellhive"
	"github.com/hivectl/hive/internal/workflows"
)

// Run is what a command asks of a run of hive run: its flags, the one
// value that the local host and Temporal's take. A resume settles it from
// the run's journal (ResumeSettings): the run goes on as it started.
type Run struct {
	// Stderr is where what is settled is said (the workflow picked, a
	// flag a resumed run ignores).
	Stderr io.Writer
	// Workflow, Roles and Only name the roles to run (-w, --roles,
	// --only); Plan asks the planner instead.
	Workflow string
	Roles    []string
	Only     string
	Plan     bool
	// Context are the files every role is given (-c).
	Context []string
	// Issue is the GitHub issue a new run takes its objective and context
	// from, once read (TakeIssue).
	Issue *github.Issue
	// Agent plays every role ("": the config's).
	Agent       string
	Yes         bool
	NoInterview bool
	// Evaluate judges each role's work (routing.evaluate in config too).
	Evaluate bool
	Resume   bool
	// Answer, with Resume, answers the question the run stopped at.
	Answer string
	Fresh  bool
	// NoMerge, Push, PR and Follow are how the finished run's work is
	// delivered; AllowDirty runs next to uncommitted changes.
	NoMerge, AllowDirty, Push, PR, Follow bool
	FollowPoll                            time.Duration
	// OnLimit is --on-limit ("": limits.on_limit).
	OnLimit string
	// Wait is --checkpoint-wait, when WaitSet.
	Wait    time.Duration
	WaitSet bool
	// BudgetUSD overrides budget.usd when BudgetUSDSet.
	BudgetUSD    float64
	BudgetUSDSet bool
	// NewRunFlags are the flags given with Resume that only a new run
	// takes (its workflow, its context): the resumed run keeps its own.
	NewRunFlags []string
	// RolesElsewhere: the roles' agents start on the workers that serve
	// the run's sessions (on Temporal), so their CLIs are not checked
	// here, where none of them runs.
	RolesElsewhere bool
}

// Choice is what a new run is to do, settled where it is asked for:
// its workflow of roles (and how it was chosen) and the files every role
// is given.
type Choice struct {
	Workflow workflows.Workflow     `json:"workflow"`
	Planning *runjournal.Planning   `json:"planning,omitempty"`
	Context  []roleplan.ContextFile `json:"context,omitempty"`
	// Closes is what the run's pull request says of its issue (--issue).
	Closes string `json:"closes,omitempty"`
}

// Choose settles a new run's workflow (the flags', the planner's or
// the rules') and reads its context files.
func (o *Run) Choose(ctx context.Context, repo *gitx.Repo, cfg *config.Config, objective string) (Choice, error) {
	var ch Choice
	if o.Plan && o.Workflow == "" && len(o.Roles) == 0 && o.Only == "" {
		l, err := Launcher(o.Agent, cfg, workflows.RolePlanner)
		if err != nil {
			return ch, err
		}
		if err := Preflight(ctx, o.Stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{workflows.RolePlanner: l}); err != nil {
			return ch, err
		}
		home, _ := os.UserHomeDir()
		model := ""
		if rungs := Ladder(cfg, workflows.RolePlanner, l.Name()); len(rungs) > 0 {
			model = rungs[len(rungs)-1] // the cheapest
		}
		w, p := planner.Plan(ctx, planner.Options{Repo: repo, Launcher: SecretsOf(cfg).Wrap(l), Model: model, Home: home, Objective: objective, AllowEnv: cfg.Secrets.Env})
		fmt.Fprintf(o.Stderr, "workflow %s (by the %s): %s\n", p.Workflow, p.By, p.Reasoning)
		ch.Workflow, ch.Planning = w, &p
	} else {
		var err error
		if ch.Workflow, err = o.workflowFor(repo.Root, objective); err != nil {
			return ch, exit.With(exit.Usage, err)
		}
	}
	var err error
	if ch.Context, err = contextFiles(repo.Root, o.Context); err != nil {
		return ch, exit.With(exit.Usage, err)
	}
	if i := o.Issue; i != nil {
		ch.Context = append(ch.Context, roleplan.ContextFile{Name: fmt.Sprintf("GitHub issue #%d (%s)", i.Number, i.URL), Text: i.Text()})
		ch.Closes = i.Closes()
	}
	// A repository the shell Hive worked in keeps what it learned;
	// every role gets its conventions and gotchas.
	if mem, ok := shellhive.Memory(repo.Root); ok {
		ch.Context = append(ch.Context, roleplan.ContextFile{Name: ".hive/memory.json (the shell Hive's memory)", Text: mem})
		fmt.Fprintln(o.Stderr, "context: the shell Hive's memory (.hive/memory.json): its project facts, conventions and gotchas go to every role")
	}
	return ch, nil
}

// contextFiles reads the files -c names, for every role.
func contextFiles(root string, names []string) ([]roleplan.ContextFile, error) {
	var out []roleplan.ContextFile
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
		out = append(out, roleplan.ContextFile{Name: name, Text: string(data)})
	}
	return out, nil
}

// builtinNames lists the built-in workflows' names.
func builtinNames() string {
	var names []string
	for _, w := range workflows.Builtins {
		names = append(names, w.Name)
	}
	return strings.Join(names, ", ")
}

// ResumeSettings gives a resume the settings its run started with, from
// the spec in its journal. The run itself keeps its workflow, context
// files, --yes, --no-interview, --evaluate, budget, --no-merge, --push
// and --pr; here, the agent it started with plays its roles again (a
// different --agent is refused, as execute-phase refuses it: the roles
// already played would not be played by the agent that plays the rest),
// and its --checkpoint-wait holds unless this command gives one. A flag
// given here that only a new run takes is said to be ignored.
func (o *Run) ResumeSettings(root string, j journal.Journal, resume string) error {
	run, ok, err := runjournal.Latest(j)
	if err != nil {
		return exit.With(exit.Internal, err)
	}
	if !ok || !run.Finished.IsZero() {
		return nil // nothing to resume: the run says so
	}
	m, err := runjournal.Replay(j, run)
	if err != nil {
		return exit.With(exit.Internal, fmt.Errorf("replay run %d: %w", run.ID, err))
	}
	spec := m.Snapshot().Spec
	switch {
	case spec.Agent == "" || spec.Agent == o.Agent:
	case o.Agent == "":
		o.Agent = spec.Agent
	default:
		return exit.Errorf(exit.Usage, "run %d started with --agent %s, which plays its roles to the end: resume it with %s, or abandon it and start a new run with --fresh --agent %s",
			run.ID, spec.Agent, resume, o.Agent)
	}
	o.AllowDirty = o.AllowDirty || spec.AllowDirty
	if !o.WaitSet && spec.CheckpointWait != "" {
		if d, err := time.ParseDuration(spec.CheckpointWait); err == nil {
			o.Wait, o.WaitSet = d, true
		}
	}
	if len(o.NewRunFlags) > 0 {
		fmt.Fprintf(o.Stderr, "%s: for a new run; run %d goes on with the workflow and context files it started with (hive run --fresh starts a new one)\n",
			strings.Join(o.NewRunFlags, ", "), run.ID)
	}
	return nil
}

// Journal opens the project's journal of hive run's runs.
// Reports, answers and test output are masked like execute-phase's: a
// secret never reaches the journal.
func Journal(repo *gitx.Repo, cfg *config.Config) (journal.Journal, func(), error) {
	db, err := journal.Open(filepath.Join(repo.Root, ".hive", "runs.db"))
	if err != nil {
		return nil, nil, exit.With(exit.Internal, err)
	}
	return journalFaults(journal.Redacting(db, SecretsOf(cfg).Red)), func() { db.Close() }, nil
}

// Options readies a run of the pipeline here (its observer and
// its wait for answers are the caller's): the roles' agents, checked; the
// budget; for a new run its routing and evaluator.
func (o *Run) Options(ctx context.Context, repo *gitx.Repo, cfg *config.Config, objective string, ch Choice, j journal.Journal) (piperun.Options, error) {
	launchers, ladders, err := RoleAgents(o.Agent, cfg)
	if err != nil {
		return piperun.Options{}, err
	}
	// The agents of the workflow's roles must be able to start: a resumed
	// run's workflow is the one in its journal (every role's when it
	// cannot be read there).
	wf, every := ch.Workflow, false
	if o.Resume && len(wf.Steps) == 0 {
		every = true
		if last, ok, err := runjournal.Latest(j); err == nil && ok {
			if m, err := runjournal.Replay(j, last); err == nil && m.Started() {
				wf, every = m.Snapshot().Spec.Workflow, false
			}
		}
	}
	used := map[string]agent.Launcher{}
	for role, l := range launchers {
		// A reviewer's high finding may add a security audit (routing).
		if every || wf.Needs(role) || role == workflows.RoleSecurity && wf.Needs(workflows.RoleReviewer) {
			used[role] = l
		}
	}
	if o.RolesElsewhere {
		used = nil
	}
	onLimit, fallback, err := OnLimit(cfg, o.OnLimit)
	if err != nil {
		return piperun.Options{}, err
	}
	if fallback != nil && used != nil {
		used[config.FallbackRole] = fallback // found missing now, not at the limit
	}
	if err := Preflight(ctx, o.Stderr, cfg.Secrets.Env, nil, used); err != nil {
		return piperun.Options{}, err
	}
	home, _ := os.UserHomeDir()
	opts := piperun.Options{
		Repo: repo, Journal: j,
		Objective: objective, Workflow: ch.Workflow, Planning: ch.Planning, Resume: o.Resume, Answer: o.Answer,
		Launcher: launchers[workflows.RoleImplementer], Roles: launchers, Agent: o.Agent, Home: home, AutoAnswer: o.Yes, NoInterview: o.NoInterview, Context: ch.Context, NoMerge: o.NoMerge, AllowDirty: o.AllowDirty, Push: o.Push, PR: o.PR, Follow: o.Follow, PRPoll: o.FollowPoll,
		WorktreeRoot: WorktreeRoot(cfg, repo.Root), MaxConcurrent: cfg.MaxConcurrent(), Stall: cfg.Timeouts.Stall,
		Setup: WorktreeSetup(cfg), TestCommand: cfg.Commands.Test, BuildCommand: cfg.Commands.Build, Tools: cfg.Tools,
	}
	opts.Prices, opts.Ladders, opts.Guard = Prices(cfg), ladders, LoopGuard(cfg)
	// Checked, the agents get the Secrets (secrets.env) and have them
	// masked, as execute-phase's do.
	sec := SecretsOf(cfg)
	sec.WrapAll(launchers)
	opts.Launcher = launchers[workflows.RoleImplementer]
	opts.OnLimit, opts.Fallback = onLimit, sec.Wrap(fallback)
	opts.Closes = ch.Closes
	if o.WaitSet {
		opts.CheckpointWait = o.Wait.String()
	}
	// A postmortem model tells the finished run when the config names one;
	// otherwise hive's own paragraph does.
	if _, ok := cfg.Models[workflows.RolePostmortem]; ok {
		if l, err := Launcher(o.Agent, cfg, workflows.RolePostmortem); err == nil {
			opts.Postmortem = sec.Wrap(l)
			if rungs := Ladder(cfg, workflows.RolePostmortem, l.Name()); len(rungs) > 0 {
				opts.PostmortemModel = rungs[len(rungs)-1] // the cheapest
			}
		}
	}
	if !o.Resume {
		if opts.Routing, err = o.routing(cfg, repo.Root, objective); err != nil {
			return opts, err
		}
		if opts.Routing.Evaluate {
			l, err := Launcher(o.Agent, cfg, workflows.RoleEvaluator)
			if err != nil {
				return opts, err
			}
			if err := Preflight(ctx, o.Stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{workflows.RoleEvaluator: l}); err != nil {
				return opts, err
			}
			opts.Evaluator = sec.Wrap(l)
			if rungs := Ladder(cfg, workflows.RoleEvaluator, l.Name()); len(rungs) > 0 {
				opts.EvaluatorModel = rungs[len(rungs)-1] // the cheapest
			}
		}
	} else if o.Evaluate {
		fmt.Fprintln(o.Stderr, "--evaluate is for a new run: a resumed run keeps the routing it started with")
	}
	if o.Resume && o.Yes {
		fmt.Fprintln(o.Stderr, "--yes is for a new run: a resumed run keeps the setting it started with; answer its question with --answer or hive answer")
	}
	if o.Resume && o.Follow {
		fmt.Fprintln(o.Stderr, "--follow is for a new run: a resumed run follows its pull request if it started with --follow")
	}
	if o.Resume && o.BudgetUSDSet {
		fmt.Fprintln(o.Stderr, "--budget-usd is for a new run: a resumed run keeps its own budget, raised by answering its budget checkpoint (raise AMOUNT)")
	}
	// The phase's plan ceiling and task estimates hold for a resumed run's
	// phase too; the run's own budget is in its journal.
	b := Budget(cfg, opts.Prices, ladders[workflows.RoleImplementer], func() *pricing.Usage { return TaskHistory(repo.Root) }, o.BudgetUSD, o.BudgetUSDSet)
	opts.PlanUSD, opts.TaskUSD = b.PlanUSD, b.TaskUSD
	if !o.Resume {
		if opts.Budget, err = RoleBudget(cfg, b, opts.Prices, ladders, func() map[string]pricing.Usage { return RoleHistory(j) }); err != nil {
			return opts, exit.With(exit.Usage, err)
		}
	}
	return opts, nil
}

var workflowName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// workflowFor reads the workflow the flags ask for.
func (o *Run) workflowFor(root, objective string) (workflows.Workflow, error) {
	if o.Only != "" {
		o.Roles = []string{o.Only}
	}
	if len(o.Roles) > 0 {
		w := workflows.Workflow{Name: "custom"}
		for _, r := range o.Roles {
			w.Steps = append(w.Steps, workflows.Step{Role: strings.TrimSpace(r)})
		}
		return w, w.Validate("--roles")
	}
	if o.Workflow == "" {
		w, why := workflows.Pick(objective)
		fmt.Fprintf(o.Stderr, "workflow %s: %s (name another with -w)\n", w.Name, why)
		return w, nil
	}
	if !workflowName.MatchString(o.Workflow) {
		return workflows.Workflow{}, fmt.Errorf("workflow name %q: use letters, digits, - and _ (the file is .hive/workflows/NAME.json)", o.Workflow)
	}
	// The project's file of that name wins over the user's, and both
	// over a built-in workflow.
	rel := filepath.Join(".hive", "workflows", o.Workflow+".json")
	data, err := os.ReadFile(filepath.Join(root, rel))
	if home, herr := os.UserHomeDir(); errors.Is(err, os.ErrNotExist) && herr == nil {
		if d, gerr := os.ReadFile(filepath.Join(home, rel)); gerr == nil {
			data, err, rel = d, nil, filepath.Join("~", rel)
		}
	}
	if errors.Is(err, os.ErrNotExist) {
		if w, ok := workflows.Builtin(o.Workflow); ok {
			return w, nil
		}
		return workflows.Workflow{}, fmt.Errorf("no workflow %q: use one of %s, or write %s (hive workflows lists them)", o.Workflow, builtinNames(), rel)
	}
	if err != nil {
		return workflows.Workflow{}, err
	}
	return workflows.Parse(rel, data)
}

// routing is how a new run routes on evidence: evaluation (--evaluate or
// routing.evaluate), the confidence floor, and, for a quick objective
// with routing.skip_proven, the roles this project's memory proves.
func (o *Run) routing(cfg *config.Config, root, objective string) (roleplan.Routing, error) {
	r := cfg.Routing
	out := roleplan.Routing{Evaluate: o.Evaluate || r.Evaluate, Floor: r.Floor(), Quick: workflows.IsQuick(objective)}
	if !out.Evaluate {
		out.Floor = 0 // no evaluation, no computed confidence to hold to it
	}
	if !r.SkipProven || !out.Quick {
		return out, nil
	}
	runs, min := r.ProvenRuns, r.ProvenConfidence
	if runs == 0 {
		runs = 3
	}
	if min == 0 {
		min = 63
	}
	st, err := memory.Open(filepath.Join(root, memory.Path))
	if err != nil {
		return out, fmt.Errorf("routing.skip_proven reads the project's memory: %w (hive memory rebuild remakes it)", err)
	}
	defer st.Close()
	if out.Proven, err = st.Proven(runs, min); err != nil {
		return out, err
	}
	if len(out.Proven) > 0 {
		fmt.Fprintf(o.Stderr, "routing: proven here (the last %d runs at %d/70 or more): %s; a quick objective may leave them out\n", runs, min, strings.Join(out.Proven, ", "))
	}
	return out, nil
}

// WorktreeRoot is git.worktree_dir made absolute (relative to the
// repository); "" lets the runner choose the user's cache folder.
func WorktreeRoot(cfg *config.Config, repoRoot string) string {
	root := cfg.Git.WorktreeDir
	if root != "" && !filepath.IsAbs(root) {
		root = filepath.Join(repoRoot, root)
	}
	return root
}

// WorktreeSetup is the configured set-up of each new worktree.
func WorktreeSetup(cfg *config.Config) integration.Setup {
	return integration.Setup{Copy: cfg.Workflow.WorktreeSetup.Copy, Command: cfg.Workflow.WorktreeSetup.Command}
}

// TakeIssue reads --issue with gh: the run's objective is the issue's
// title unless the command line gave one, and Choose gives every role
// the issue's text.
func (o *Run) TakeIssue(ctx context.Context, root string, cfg *config.Config, number, objective string) (string, error) {
	gh, err := github.Gh()
	if err != nil {
		return "", exit.Errorf(exit.Usage, "--issue: %v", err)
	}
	i, err := github.View(ctx, gh, root, number)
	if err != nil {
		return "", exit.Errorf(exit.Usage, "--issue: %v", err)
	}
	o.Issue = &i
	fmt.Fprintf(o.Stderr, "issue #%d: %s (%s)\n", i.Number, i.Title, i.URL)
	if o.Workflow == "" && len(o.Roles) == 0 && o.Only == "" && !o.Plan {
		for _, l := range i.Labels {
			if wf := cfg.GitHub.Labels[l]; wf != "" {
				o.Workflow = wf
				fmt.Fprintf(o.Stderr, "workflow %s, for the issue's label %s (github.labels in .hive/config.json)\n", wf, l)
				break
			}
		}
	}
	if objective == "" {
		objective = i.Title
	}
	return objective, nil
}

// JournalPath is where the repository's journal of phase runs lives.
func JournalPath(root string) string { return filepath.Join(root, ".hive", "journal.db") }
