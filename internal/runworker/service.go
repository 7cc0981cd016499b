package runworker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runconfig"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
	"github.com/hivectl/hive/internal/workflows"
)

// Service is what serves hive run's runs of the repository in folder
// Root in this process: their workflows and commands (Runs: the roles'
// sessions, the checks, the phase, the delivery, on the folder's queue),
// and the plans of any run's phases (Plans, on PlansQueue), which reach
// this clone through the run's git remote (Remote, when set, its name
// here), or are in a folder this machine shares. Out, when set, shows
// what is carried out here; Stderr what the agents' checks find.
type Service struct {
	Root         string
	Stderr       io.Writer
	Agent, Queue string
	Remote       string
	// Roots are the repository's root commits, which name the queue of
	// the runs with a git remote of every clone (AnywhereQueue); with
	// FolderOnly only the folder's part of those runs is served here
	// (their journal and delivery), not their commands.
	Roots       string
	FolderOnly  bool
	Out         io.Writer
	Runs, Plans bool
}

// What says what s serves.
func (s Service) What() string {
	switch {
	case s.FolderOnly:
		return "runs' journals and deliveries (their work on other workers)"
	case !s.Plans:
		return "runs (their roles and checks here; their plans on other workers)"
	case !s.Runs:
		return "plans (of the runs of any clone)"
	}
	return "runs, their roles and their plans"
}

// Queues are the task queues s's workers poll.
func (s Service) Queues() []string {
	var queues []string
	if s.Runs {
		queues = append(queues, FolderQueue(s.Queue, s.Root))
		if s.Roots != "" && !s.FolderOnly {
			queues = append(queues, AnywhereQueue(s.Queue, s.Roots))
		}
	}
	if s.Plans {
		queues = append(queues, PlansQueue(s.Queue))
	}
	return queues
}

// Start starts s's workers; stop stops them.
func (s Service) Start(c client.Client) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	notes := s.Out
	if notes == nil {
		notes = io.Discard
	}
	if s.Runs {
		// A stopped session hears of its stop with the answer to a
		// heartbeat: at once, not at 80% of the heartbeat timeout.
		w := worker.New(c, FolderQueue(s.Queue, s.Root), worker.Options{MaxHeartbeatThrottleInterval: time.Second})
		x := &objectiveExecutor{root: s.Root, stderr: s.Stderr, agent: s.Agent, remote: s.Remote, queue: s.Queue, out: notes, workers: map[string]*piperun.Worker{}}
		objective.Register(w, c, x)
		if err := w.Start(); err != nil {
			return nil, fmt.Errorf("worker: %w", err)
		}
		stops = append(stops, w.Stop, x.close)
		if s.Roots != "" && !s.FolderOnly {
			// The runs with a git remote of every clone: their workflows
			// and commands.
			any := worker.New(c, AnywhereQueue(s.Queue, s.Roots), worker.Options{MaxHeartbeatThrottleInterval: time.Second})
			objective.Register(any, c, x)
			if err := any.Start(); err != nil {
				stop()
				return nil, fmt.Errorf("worker: %w", err)
			}
			stops = append([]func(){any.Stop}, stops...)
		}
	}
	if s.Plans {
		execs := &phaseExecutors{root: s.Root, agent: s.Agent, remote: s.Remote, out: notes}
		plans := temporal.NewPhasesWorkers(c, PlansQueue(s.Queue), execs.For, worker.Options{})
		if err := plans.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("worker: %w", err)
		}
		stops = append(stops, plans.Stop, execs.Close)
	}
	return stop, nil
}

// objectiveExecutor carries out the commands of the runs of this folder
// (objective.Executor) with piperun's Worker: one for each agent
// program, made once, its agents checked then, and given each run's
// phase runner.
type objectiveExecutor struct {
	root   string    // the folder
	stderr io.Writer // what the agents' checks find
	agent  string    // the worker's --agent, for a run that names none
	remote string    // the worker's --git-remote, for a run whose remote this clone calls otherwise
	queue  string    // the workers' task queue: the phases' plans go to PlansQueue of it
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
	repo, cfg, err := openFolder(ctx, x.root)
	if err != nil {
		return nil, err
	}
	j, closeJ, err := runconfig.Journal(repo, cfg)
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
// the tree where, whose phase runs stage.
func (x *objectiveExecutor) worker(ctx context.Context, spec roleplan.Spec, workflow string, where *temporal.Where, stage *phaseStage) (*piperun.Worker, error) {
	name := cmp.Or(spec.Agent, x.agent)
	remote := ""
	if where != nil {
		name, remote = cmp.Or(spec.Agent, where.Agent, x.agent), where.Remote
	}
	// The agents, checked once, serve every run that names them; each
	// run's phases are workflows named by its own.
	key := fmt.Sprintf("%s\x00%s\x00%v", name, remote, spec.Routing.Evaluate)
	stage.queue, stage.run, stage.agent, stage.remote = PlansQueue(x.queue), workflow, name, remote
	x.mu.Lock()
	w := x.workers[key]
	x.mu.Unlock()
	if w != nil {
		stage.stall = w.Options.Stall
		return w.ForRun(stage), nil
	}
	j, err := x.folderJournal(ctx)
	if err != nil {
		return nil, err
	}
	repo, cfg, err := openFolder(ctx, x.root)
	if err != nil {
		return nil, err
	}
	// As a resumed run's: its workflow, budget and routing are in its
	// spec; the agents of its roles are checked here, where they run.
	o := &runconfig.Run{Stderr: x.stderr, Agent: name, Resume: true}
	opts, err := o.Options(ctx, repo, cfg, spec.Objective, runconfig.Choice{Workflow: spec.Workflow}, j)
	if err != nil {
		return nil, err
	}
	if spec.Routing.Evaluate {
		l, err := runconfig.Launcher(name, cfg, workflows.RoleEvaluator)
		if err != nil {
			return nil, err
		}
		if err := runconfig.Preflight(ctx, x.stderr, cfg.Secrets.Env, nil, map[string]agent.Launcher{workflows.RoleEvaluator: l}); err != nil {
			return nil, err
		}
		opts.Evaluator = runconfig.SecretsOf(cfg).Wrap(l)
		if rungs := runconfig.Ladder(cfg, workflows.RoleEvaluator, l.Name()); len(rungs) > 0 {
			opts.EvaluatorModel = rungs[len(rungs)-1] // the cheapest
		}
	}
	notes := roleNotes{w: x.out, start: time.Now()}
	opts.Observer = notes
	w = &piperun.Worker{Options: opts, Notes: notes.Note}
	x.mu.Lock()
	x.workers[key] = w
	x.mu.Unlock()
	stage.stall = w.Options.Stall
	return w.ForRun(stage), nil
}

// Execute implements objective.Executor. What it hands the
// workflow goes into its history, a journal: the project's secrets
// (secrets.env, and what looks like a key) are masked there, as in
// .hive/runs.db.
func (x *objectiveExecutor) Execute(ctx context.Context, w objective.Work, emit func(roleplan.Event)) ([]roleplan.Event, error) {
	return x.execute(ctx, w, &phaseStage{}, emit)
}

// Phase implements objective.Executor: the stage goes through
// the run's phase command, as a local run's phase does, with the stage
// as the phase's runner.
func (x *objectiveExecutor) Phase(ctx context.Context, w objective.PhaseWork, emit func(roleplan.Event)) (objective.PhaseStep, error) {
	if w.Command.Type != roleplan.CmdRunPhase {
		return objective.PhaseStep{}, fmt.Errorf("a phase's stage for a %s command", w.Command.Type)
	}
	stage := &phaseStage{work: &w}
	evs, err := x.execute(ctx, w.Work, stage, emit)
	if err == nil && stage.started != nil {
		return *stage.started, nil
	}
	return objective.PhaseStep{Events: evs}, err
}

// execute carries w's command out, the run's phase with stage.
func (x *objectiveExecutor) execute(ctx context.Context, w objective.Work, stage *phaseStage, emit func(roleplan.Event)) (evs []roleplan.Event, err error) {
	pw, err := x.worker(ctx, w.State.Spec, w.Workflow, w.Where, stage)
	if err != nil {
		return nil, err
	}
	red, unmasked := x.redactor(), emit
	emit = func(ev roleplan.Event) { unmasked(masked(red, ev)) }
	defer func() {
		for i := range evs {
			evs[i] = masked(red, evs[i])
		}
	}()
	c := w.Command
	remote := ""
	if w.Where != nil && w.Where.Remote != "" && c.Type != roleplan.CmdStopAgent {
		if remote, err = cloneRemote(ctx, pw.Options.Repo, x.remote, w.Where.Remote); err != nil {
			return nil, err
		}
	}
	switch {
	case c.Type == roleplan.CmdStartAgent:
		fmt.Fprintf(x.out, "hive worker: %s attempt %d runs here (the %s, run %d)\n", c.Job, c.Attempt, c.Role, w.Run)
		defer fmt.Fprintf(x.out, "hive worker: %s attempt %d ended (the %s, run %d)\n", c.Job, c.Attempt, c.Role, w.Run)
	case c.Type == roleplan.CmdRunPhase && (stage.work == nil || stage.work.Stage == objective.PhaseStart):
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
		if repo, cfg, err := openFolder(context.Background(), x.root); err == nil && repo != nil {
			x.red = runconfig.SecretsOf(cfg).Red
		}
	}
	return x.red
}

// masked is ev with red's secrets masked.
func masked(red *redact.Redactor, ev roleplan.Event) roleplan.Event {
	raw, err := json.Marshal(ev)
	if err != nil {
		return ev
	}
	var out roleplan.Event
	if json.Unmarshal(red.JSON(raw), &out) != nil {
		return ev
	}
	return out
}

// Record implements objective.Executor.
func (x *objectiveExecutor) Record(ctx context.Context, r objective.Records) error {
	j, err := x.folderJournal(ctx)
	if err != nil {
		return err
	}
	evs, err := r.Events()
	if err != nil {
		return err
	}
	return runjournal.Record(j, r.Run, r.From, evs)
}

// Finish implements objective.Executor.
func (x *objectiveExecutor) Finish(ctx context.Context, end objective.End) (json.RawMessage, error) {
	evs, err := end.Events()
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 || evs[0].Spec == nil {
		return nil, fmt.Errorf("run %d's workflow stepped no start", end.Run)
	}
	pw, err := x.worker(ctx, *evs[0].Spec, end.Workflow, end.Where, &phaseStage{})
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
		if err := pw.Options.Repo.DeleteRemoteBranches(ctx, remote, RemoteRunBranch(end.Where.Namespace)); err != nil {
			res.Notes = append(res.Notes, "remove the run's branch "+RemoteRunBranch(end.Where.Namespace)+" from "+remote+": "+err.Error())
		}
	}
	fmt.Fprintf(x.out, "hive worker: run %d %s\n", res.Run.ID, res.Snapshot.Outcome)
	return json.Marshal(res)
}

// roleNotes shows on a worker's output what its roles' sessions have to
// say: their notes only (the run's events are its workflow's, which its
// follower shows).
type roleNotes struct {
	w     io.Writer
	start time.Time
}

func (roleNotes) Event(roleplan.Event, roleplan.Snapshot)     {}
func (roleNotes) Command(roleplan.Command, roleplan.Snapshot) {}
func (n roleNotes) Note(job, text string) {
	fmt.Fprintf(n.w, "%6s  %-17s %s\n", time.Since(n.start).Round(time.Second), job, text)
}
