package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/temporal"
)

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
	s := runService{g: o.globalOptions, agent: o.agent, queue: o.queue, remote: o.remote, root: repo.Root, roots: newRunNames(ctx, repo.Root).roots, out: o.stdout,
		runs: o.only != "plans", plans: o.only == "", folderOnly: o.only == "folder"}
	stopWorkers, err := s.start(c)
	if err != nil {
		return err
	}
	defer stopWorkers()
	var queues []string
	if s.runs {
		queues = append(queues, pipelineQueue(o.queue, repo.Root))
		if s.roots != "" && !s.folderOnly {
			queues = append(queues, anywhereQueue(o.queue, s.roots))
		}
	}
	if s.plans {
		queues = append(queues, phasesQueue(o.queue))
	}
	fmt.Fprintf(o.stdout, "hive worker: hive run's %s in %s, task queue %s at %s; ctrl-c stops\n", s.what(), repo.Root, strings.Join(queues, " and "), o.address)
	<-ctx.Done()
	return nil
}

// runService is what serves hive run's runs of the repository in folder
// root in this process: their workflows and commands (runs: the roles'
// sessions, the checks, the phase, the delivery, on the folder's queue),
// and the plans of any run's phases (plans, on phasesQueue), which reach
// this clone through the run's git remote (remote, when set, its name
// here), or are in a folder this machine shares. out, when set, shows
// what is carried out here.
type runService struct {
	g            *globalOptions
	agent, queue string
	remote, root string
	// roots are the repository's root commits, which name the queue of
	// the runs with a git remote of every clone (anywhereQueue); with
	// folderOnly only the folder's part of those runs is served here
	// (their journal and delivery), not their commands.
	roots       string
	folderOnly  bool
	out         io.Writer
	runs, plans bool
}

// what says what s serves.
func (s runService) what() string {
	switch {
	case s.folderOnly:
		return "runs' journals and deliveries (their work on other workers)"
	case !s.plans:
		return "runs (their roles and checks here; their plans on other workers)"
	case !s.runs:
		return "plans (of the runs of any clone)"
	}
	return "runs, their roles and their plans"
}

// start starts s's workers; stop stops them.
func (s runService) start(c client.Client) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	notes := s.out
	if notes == nil {
		notes = io.Discard
	}
	if s.runs {
		// A stopped session hears of its stop with the answer to a
		// heartbeat: at once, not at 80% of the heartbeat timeout.
		w := worker.New(c, pipelineQueue(s.queue, s.root), worker.Options{MaxHeartbeatThrottleInterval: time.Second})
		x := &objectiveExecutor{g: s.g, agent: s.agent, remote: s.remote, c: c, queue: s.queue, out: notes, workers: map[string]*piperun.Worker{}}
		temporal.RegisterObjective(w, c, x)
		if err := w.Start(); err != nil {
			return nil, fmt.Errorf("worker: %w", err)
		}
		stops = append(stops, w.Stop, x.close)
		if s.roots != "" && !s.folderOnly {
			// The runs with a git remote of every clone: their workflows
			// and commands.
			any := worker.New(c, anywhereQueue(s.queue, s.roots), worker.Options{MaxHeartbeatThrottleInterval: time.Second})
			temporal.RegisterObjective(any, c, x)
			if err := any.Start(); err != nil {
				stop()
				return nil, fmt.Errorf("worker: %w", err)
			}
			stops = append([]func(){any.Stop}, stops...)
		}
	}
	if s.plans {
		execs := &phaseExecutors{g: s.g, agent: s.agent, remote: s.remote, out: notes}
		plans := temporal.NewPhasesWorkers(c, phasesQueue(s.queue), execs.For, worker.Options{})
		if err := plans.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("worker: %w", err)
		}
		stops = append(stops, plans.Stop, execs.Close)
	}
	return stop, nil
}

// objectiveExecutor carries out the commands of the runs of this folder
// (temporal.ObjectiveExecutor) with piperun's Worker: one for each agent
// program, made once, its agents checked then, and given each run's
// phase runner.
type objectiveExecutor struct {
	g      *globalOptions
	agent  string // the worker's --agent, for a run that names none
	remote string // the worker's --git-remote, for a run whose remote this clone calls otherwise
	c      client.Client
	queue  string // the workers' task queue: the phases' plans go to phasesQueue of it
	out    io.Writer

	mu      sync.Mutex
	red     *redact.Redactor // the folder's secrets, read once
	journal journal.Journal  // the folder's, opened once
	closeJ  func()
	workers map[string]*piperun.Worker
}

// folderJournal is the folder's journal, opened once.
func (x *objectiveExecutor) folderJournal(ctx context.Context) (journal.Journal, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.journal != nil {
		return x.journal, nil
	}
	repo, cfg, err := openRepoConfig(ctx, x.g)
	if err != nil {
		return nil, err
	}
	j, closeJ, err := pipelineJournal(repo, cfg)
	if err != nil {
		return nil, err
	}
	x.journal, x.closeJ = j, closeJ
	return j, nil
}

func (x *objectiveExecutor) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closeJ != nil {
		x.closeJ()
	}
}

// worker is the Worker of the run of workflow whose machine has spec, in
// the tree where.
func (x *objectiveExecutor) worker(ctx context.Context, spec pipeline.Spec, workflow string, where *temporal.Where) (*piperun.Worker, error) {
	name := cmp.Or(spec.Agent, x.agent)
	remote := ""
	if where != nil {
		name, remote = cmp.Or(spec.Agent, where.Agent, x.agent), where.Remote
	}
	// The agents, checked once, serve every run that names them; each
	// run's phases are workflows named by its own.
	key := fmt.Sprintf("%s\x00%s\x00%v", name, remote, spec.Routing.Evaluate)
	x.mu.Lock()
	w := x.workers[key]
	x.mu.Unlock()
	if w != nil {
		return w.ForRun(&phaseWorkflows{c: x.c, queue: phasesQueue(x.queue), run: workflow, stall: w.Options.Stall, agent: name, remote: remote}), nil
	}
	j, err := x.folderJournal(ctx)
	if err != nil {
		return nil, err
	}
	repo, cfg, err := openRepoConfig(ctx, x.g)
	if err != nil {
		return nil, err
	}
	// As a resumed run's: its workflow, budget and routing are in its
	// spec; the agents of its roles are checked here, where they run.
	o := &runOptions{globalOptions: x.g, agent: name, resume: true}
	opts, err := pipelineOptions(ctx, o, repo, cfg, spec.Objective, runChoice{Workflow: spec.Workflow}, j)
	if err != nil {
		return nil, err
	}
	if spec.Routing.Evaluate {
		l, err := pickLauncher(name, cfg, pipeline.RoleEvaluator)
		if err != nil {
			return nil, err
		}
		if err := preflightAgents(ctx, x.g.stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{pipeline.RoleEvaluator: l}); err != nil {
			return nil, err
		}
		opts.Evaluator = secretsOf(cfg).wrap(l)
		if rungs := ladder(cfg, pipeline.RoleEvaluator, l.Name()); len(rungs) > 0 {
			opts.EvaluatorModel = rungs[len(rungs)-1] // the cheapest
		}
	}
	printer := &runPrinter{w: x.out, start: time.Now(), repo: repo}
	opts.Observer = &driverPrinter{runPrinter: printer}
	w = &piperun.Worker{Options: opts, Notes: func(job, text string) { printer.Note(job, text) }}
	x.mu.Lock()
	x.workers[key] = w
	x.mu.Unlock()
	return w.ForRun(&phaseWorkflows{c: x.c, queue: phasesQueue(x.queue), run: workflow, stall: cfg.Timeouts.Stall, agent: name, remote: remote}), nil
}

// Execute implements temporal.ObjectiveExecutor. What it hands the
// workflow goes into its history, a journal: the project's secrets
// (secrets.env, and what looks like a key) are masked there, as in
// .hive/runs.db.
func (x *objectiveExecutor) Execute(ctx context.Context, w temporal.ObjectiveWork, emit func(pipeline.Event)) (evs []pipeline.Event, err error) {
	pw, err := x.worker(ctx, w.State.Spec, w.Workflow, w.Where)
	if err != nil {
		return nil, err
	}
	red, unmasked := x.redactor(), emit
	emit = func(ev pipeline.Event) { unmasked(masked(red, ev)) }
	defer func() {
		for i := range evs {
			evs[i] = masked(red, evs[i])
		}
	}()
	c := w.Command
	remote := ""
	if w.Where != nil && w.Where.Remote != "" && c.Type != pipeline.CmdStopAgent {
		if remote, err = cloneRemote(ctx, pw.Options.Repo, x.remote, w.Where.Remote); err != nil {
			return nil, err
		}
	}
	switch c.Type {
	case pipeline.CmdStartAgent:
		fmt.Fprintf(x.out, "hive worker: %s attempt %d runs here (the %s, run %d)\n", c.Job, c.Attempt, c.Role, w.Run)
		defer fmt.Fprintf(x.out, "hive worker: %s attempt %d ended (the %s, run %d)\n", c.Job, c.Attempt, c.Role, w.Run)
	case pipeline.CmdRunPhase:
		fmt.Fprintf(x.out, "hive worker: %s attempt %d runs here (run %d's phase)\n", c.Job, c.Attempt, w.Run)
	}
	if remote != "" {
		return executeRemote(ctx, pw, pw.Options.Repo, remote, w, emit)
	}
	return pw.Execute(ctx, piperun.Work{Run: w.Run, Command: c, State: w.State}, emit)
}

// redactor masks the folder's secrets.
func (x *objectiveExecutor) redactor() *redact.Redactor {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.red == nil {
		x.red = redact.New()
		if repo, cfg, err := openRepoConfig(context.Background(), x.g); err == nil && repo != nil {
			x.red = secretsOf(cfg).red
		}
	}
	return x.red
}

// masked is ev with red's secrets masked.
func masked(red *redact.Redactor, ev pipeline.Event) pipeline.Event {
	raw, err := json.Marshal(ev)
	if err != nil {
		return ev
	}
	var out pipeline.Event
	if json.Unmarshal(red.JSON(raw), &out) != nil {
		return ev
	}
	return out
}

// Record implements temporal.ObjectiveExecutor.
func (x *objectiveExecutor) Record(ctx context.Context, r temporal.ObjectiveRecords) error {
	j, err := x.folderJournal(ctx)
	if err != nil {
		return err
	}
	evs, err := r.Events()
	if err != nil {
		return err
	}
	return (&piperun.Worker{Options: piperun.Options{Journal: j}}).Record(r.Run, r.From, evs)
}

// Finish implements temporal.ObjectiveExecutor.
func (x *objectiveExecutor) Finish(ctx context.Context, end temporal.ObjectiveEnd) (json.RawMessage, error) {
	evs, err := end.Events()
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 || evs[0].Spec == nil {
		return nil, fmt.Errorf("run %d's workflow stepped no start", end.Run)
	}
	pw, err := x.worker(ctx, *evs[0].Spec, end.Workflow, end.Where)
	if err != nil {
		return nil, err
	}
	remote := ""
	if w := end.Where; w != nil && w.Remote != "" {
		// The workers did the run's work in their clones: it comes home
		// first, and its branch on the remote goes once delivered.
		remote = w.Remote
		dir, err := piperun.RunWorktree(pw.Options, end.Run)
		if err != nil {
			return nil, err
		}
		if err := bringHome(ctx, pw.Options.Repo, remote, w.Namespace, dir); err != nil {
			return nil, err
		}
	}
	res, err := pw.Finish(ctx, end.Run, evs)
	if err != nil {
		return nil, err
	}
	if remote != "" {
		if err := pw.Options.Repo.DeleteRemoteBranches(ctx, remote, remoteRunBranch(end.Where.Namespace)); err != nil {
			res.Notes = append(res.Notes, "remove the run's branch "+remoteRunBranch(end.Where.Namespace)+" from "+remote+": "+err.Error())
		}
	}
	fmt.Fprintf(x.out, "hive worker: run %d %s\n", res.Run.ID, res.Snapshot.Outcome)
	return json.Marshal(res)
}

// driverPrinter shows what a worker does: its notes only.
type driverPrinter struct{ *runPrinter }

func (p *driverPrinter) Event(pipeline.Event, pipeline.Snapshot)     {}
func (p *driverPrinter) Command(pipeline.Command, pipeline.Snapshot) {}
