package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
)

// phaseWorkflows runs the implementers' phase of a Temporal run of hive
// run as a phase workflow of its own: the engine, dispatching the plans'
// agent sessions to every `hive worker --backend temporal` without a
// PHASE (the plans' task queue, phasesQueue), in the run's worktree,
// which those workers share. The phase's state lives in that workflow's
// history, not in this worker: a driver that dies leaves it working, and
// the next driver attaches to it instead of running its plans again.
type phaseWorkflows struct {
	c     client.Client
	queue string // the plans' task queue
	run   string // the pipeline's workflow id, which names the phases'
	stall time.Duration
	agent string // the run's --agent, for its implementers on every worker
}

// phasesQueue is the task queue of the plans of hive run's phases.
func phasesQueue(queue string) string { return queue + "-plans" }

// phaseWorkflowID names the workflow of one phase run of a pipeline run:
// by the run's number and the moment it was created, since numbers start
// again in a new journal (a new clone in the same folder) while the
// server keeps the workflows of the old one.
func phaseWorkflowID(pipelineID string, w piperun.PhaseWork) string {
	h := fnv.New32a()
	h.Write([]byte(w.Run.Started.UTC().Format(time.RFC3339Nano)))
	return fmt.Sprintf("%s-%d-%08x-%s-%d", pipelineID, w.Run.ID, h.Sum32(), w.Job, w.Attempt)
}

// RunPhase implements piperun.PhaseRunner.
func (t *phaseWorkflows) RunPhase(ctx context.Context, w piperun.PhaseWork) (runner.Result, error) {
	o := w.Options
	o.Git = runner.Git{} // the workers share the run's worktree, where plans run side by side on files of their own
	// The phase's workflow of this command, started by a driver before
	// this one, goes on (or it ended, and its result is the phase's); so
	// does one of an earlier attempt that still runs, stopped for a human
	// (its budget), unless the architect changed the plans since: that
	// one ends, for a fresh run.
	for a := w.Attempt; a >= 1; a-- {
		e := w
		e.Attempt = a
		id := phaseWorkflowID(t.run, e)
		desc, err := t.c.DescribeWorkflowExecution(ctx, id, "")
		var missing *serviceerror.NotFound
		if errors.As(err, &missing) {
			continue
		}
		if err != nil {
			return runner.Result{}, fmt.Errorf("look for the phase's workflow %s: %w", id, err)
		}
		switch status := desc.GetWorkflowExecutionInfo().GetStatus(); {
		case status == enums.WORKFLOW_EXECUTION_STATUS_RUNNING && a < w.Attempt && w.Fresh:
			if err := t.c.TerminateWorkflow(ctx, id, "", "the architect changed the plans: a fresh phase run replaces this one"); err != nil {
				return runner.Result{}, fmt.Errorf("end the phase's earlier run %s: %w", id, err)
			}
		case status == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
			return t.goOn(ctx, id, o)
		case status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED && a == w.Attempt:
			o.Observer.Note("temporal", "the phase's plans ran in Temporal workflow "+id)
			return t.follow(ctx, t.c.GetWorkflow(ctx, id, ""), o, 0)
		}
	}
	id := phaseWorkflowID(t.run, w)
	o.Observer.Note("temporal", "the phase's plans run on the workers of task queue "+t.queue+" (Temporal workflow "+id+")")
	if err := piperun.SaveBriefs(o); err != nil {
		return runner.Result{}, err
	}
	d := temporalDispatch(t.queue, t.stall)
	d.Where = &temporal.Where{Dir: o.Repo.Root, Phase: o.Phase.Dir, Env: w.Env, Agent: t.agent}
	run, err := t.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: t.queue}, temporal.RunWorkflowName, temporal.RunInput{Dispatch: d})
	if err != nil {
		return runner.Result{}, fmt.Errorf("start the phase's workflow %s: %w", id, err)
	}
	return t.begin(ctx, run, o)
}

// begin starts the phase's run in its workflow, just started (or left
// unstarted by a driver that died), and follows it.
func (t *phaseWorkflows) begin(ctx context.Context, run client.WorkflowRun, o runner.Options) (runner.Result, error) {
	spec, err := runner.PhaseSpec(ctx, o)
	if err != nil {
		t.c.TerminateWorkflow(ctx, run.GetID(), "", "hive could not read the phase: "+err.Error())
		return runner.Result{}, err
	}
	if donePlans(spec) == len(spec.Plans) {
		t.c.TerminateWorkflow(ctx, run.GetID(), "", "nothing to do")
		return runner.Result{NothingToDo: true}, nil
	}
	// Unattended: the engine stops for a human (CmdStopForHuman) at what
	// only one may answer, and the pipeline asks.
	ev := engine.Event{Type: engine.EvRunStarted, Time: o.Now().UTC(), Spec: &spec}
	if err := t.c.SignalWorkflow(ctx, run.GetID(), "", temporal.EventSignal, ev); err != nil {
		return runner.Result{}, fmt.Errorf("start the phase's run: %w", err)
	}
	return t.follow(ctx, run, o, 0)
}

// goOn follows the running phase workflow id. One that stopped for a
// human (CmdStopForHuman) at its budget goes on with the raise in o's
// budget; at anything else (a challenge) it still waits, and says so. One
// whose run a driver did not get to start is started.
func (t *phaseWorkflows) goOn(ctx context.Context, id string, o runner.Options) (runner.Result, error) {
	run := t.c.GetWorkflow(ctx, id, "")
	snap, err := temporalState(ctx, t.c, run)
	if err != nil {
		return runner.Result{}, err
	}
	if !snap.Started {
		return t.begin(ctx, run, o)
	}
	// What it did before is told already: the answers after last are new.
	stopped, last, err := t.stopped(ctx, id, snap)
	if err != nil {
		return runner.Result{}, err
	}
	if stopped {
		// The raise lets it go on (the engine starts the held plans);
		// with nothing to raise, it still waits for what stopped it.
		cp := piperun.BudgetCheckpoint(snap)
		text := ""
		if cp != nil {
			text = piperun.RaiseText(snap, o.Agents.Budget)
		}
		if text == "" {
			return runner.Result{Run: journal.Run{ID: phaseRunNumber(id), Phase: o.Phase.Dir}, Snapshot: snap}, &runner.NeedsHumanError{Checkpoints: snap.Queue}
		}
		ev := engine.Event{Type: engine.EvAnswer, Time: o.Now().UTC(), Plan: engine.BudgetID, CheckpointID: cp.ID, Text: text, By: "hive run"}
		if err := t.c.SignalWorkflow(ctx, id, "", temporal.EventSignal, ev); err != nil {
			return runner.Result{}, fmt.Errorf("raise the phase's budget in %s: %w", id, err)
		}
	}
	o.Observer.Note("temporal", "the phase's plans go on in Temporal workflow "+id)
	return t.follow(ctx, run, o, last)
}

// stopped says whether the phase workflow id, whose state is snap,
// stopped for a human and did not go on since (stopsFor), and the
// sequence number of its last answer. A workflow run that continued as
// new while it waited has no answers yet: an open checkpoint says it.
func (t *phaseWorkflows) stopped(ctx context.Context, id string, snap engine.Snapshot) (stopped bool, last int, err error) {
	v, err := t.c.QueryWorkflow(ctx, id, "", temporal.AnswersQuery, 0)
	if err != nil {
		return false, 0, fmt.Errorf("ask the phase's workflow %s what it did: %w", id, err)
	}
	var answers []temporal.Answer
	if err := v.Get(&answers); err != nil {
		return false, 0, err
	}
	if len(answers) == 0 {
		return len(snap.Queue) > 0, 0, nil
	}
	for _, a := range answers {
		stopped = stopsFor(a, stopped)
		last = a.Seq
	}
	return stopped, last, nil
}

// stopsFor says whether a run is stopped for a human after answer a, given
// whether it was before: a CmdStopForHuman stops it; a resume, or an agent
// started (an answer let work go on), ends the stop.
func stopsFor(a temporal.Answer, stopped bool) bool {
	if a.Event == engine.EvResumed {
		stopped = false
	}
	for _, c := range a.Commands {
		switch c.Type {
		case engine.CmdStopForHuman:
			stopped = true
		case engine.CmdStartAgent:
			stopped = false
		}
	}
	return stopped
}

// follow tells o's observer what the phase's workflow does after its
// answer seen until its run ends, or stops for a human (its workflow then
// waits, for a raise or a fresh run to end it), or ctx ends.
func (t *phaseWorkflows) follow(ctx context.Context, run client.WorkflowRun, o runner.Options, seen int) (runner.Result, error) {
	res := runner.Result{Run: journal.Run{ID: phaseRunNumber(run.GetID()), Phase: o.Phase.Dir}}
	done := make(chan error, 1)
	var out temporal.RunResult
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { done <- temporal.Result(rctx, run, &out) }()
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return res, fmt.Errorf("the phase's workflow %s: %w", run.GetID(), err)
			}
			final, err := engine.Restore(*out.State)
			if err != nil {
				return res, err
			}
			res.Snapshot = final.Snapshot()
			t.tell(o, out.Answers, &seen, res.Snapshot)
			// STATE.md and ROADMAP.md as a local phase run leaves them,
			// once: a driver that died after committing them did its part.
			subject := fmt.Sprintf("docs(%s): phase run %s", o.Phase.Number, res.Snapshot.Outcome)
			if last, err := o.Repo.Git(ctx, "log", "-1", "--format=%s"); err != nil || strings.TrimSpace(last) != subject {
				for _, n := range runner.DeliverShared(ctx, o, res.Snapshot) {
					o.Observer.Note("temporal", n)
				}
			}
			return res, nil
		case <-ctx.Done():
			return res, ctx.Err()
		case <-tick.C:
			v, err := t.c.QueryWorkflow(ctx, run.GetID(), "", temporal.AnswersQuery, seen)
			if err != nil {
				continue // between runs (continue-as-new), or ending
			}
			var answers []temporal.Answer
			if v.Get(&answers) != nil || len(answers) == 0 {
				continue
			}
			snap, err := temporalState(ctx, t.c, run)
			if err != nil {
				continue
			}
			res.Snapshot = snap
			if t.tell(o, answers, &seen, snap) {
				return res, &runner.NeedsHumanError{Checkpoints: snap.Queue}
			}
		}
	}
}

// tell passes the answers after *seen to o's observer, and says whether
// the run stopped for a human.
func (t *phaseWorkflows) tell(o runner.Options, answers []temporal.Answer, seen *int, snap engine.Snapshot) (stopped bool) {
	for _, a := range answers {
		if a.Seq <= *seen {
			continue
		}
		*seen = a.Seq
		o.Observer.Event(engine.Event{Type: a.Event}, snap)
		for _, c := range a.Commands {
			o.Observer.Command(c, snap)
		}
		stopped = stopsFor(a, stopped)
	}
	return stopped
}

// phaseRunNumber stands for a phase's workflow where the pipeline counts a
// phase run's spending by its journal run (pipeline.Event.PhaseRun):
// negative, so that it meets no journal's.
func phaseRunNumber(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return -int64(h.Sum64() >> 2)
}

// phaseExecutors carry out the commands of hive run's phases on a worker:
// a runner.Worker per phase and tree, made at its first command with the
// project's agents (the implementer's, the comb's) of the run's agent
// program, and kept until the worker stops or the tree is gone.
type phaseExecutors struct {
	g     *globalOptions
	agent string // the worker's --agent
	out   io.Writer

	mu      sync.Mutex
	workers map[string]*runner.Worker
}

// For implements temporal.NewPhasesWorkers's executor of w's commands.
func (p *phaseExecutors) For(w temporal.Where) (temporal.Executor, error) {
	key := strings.Join(append([]string{w.Dir, w.Phase, w.Agent}, w.Env...), "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	if rw := p.workers[key]; rw != nil {
		return announced{rw, p.out}, nil
	}
	// The phases of runs whose worktree is gone (delivered) are over.
	for k, rw := range p.workers {
		if _, err := os.Stat(strings.SplitN(k, "\x00", 2)[0]); errors.Is(err, os.ErrNotExist) {
			rw.Close()
			delete(p.workers, k)
		}
	}
	ctx := context.Background()
	repo, cfg, err := openRepoConfig(ctx, p.g)
	if err != nil {
		return nil, err
	}
	name := w.Agent
	if name == "" {
		name = p.agent
	}
	launchers, ladders, err := roleAgents(name, cfg)
	if err != nil {
		return nil, err
	}
	o := piperun.Options{Repo: repo, Launcher: launchers[pipeline.RoleImplementer], Roles: launchers, WorktreeRoot: worktreeRoot(cfg, repo.Root), Setup: worktreeSetup(cfg),
		MaxConcurrent: cfg.MaxConcurrent(), Stall: cfg.Timeouts.Stall, Prices: prices(cfg), Ladders: ladders, Guard: loopGuard(cfg)}
	// The workflow's history names the tree: it must be a run's worktree
	// of this project, and the phase a folder inside it.
	root, err := piperun.WorktreeRoot(o)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(filepath.Clean(w.Dir)) != filepath.Clean(root) || !runWorktree.MatchString(filepath.Base(w.Dir)) || !filepath.IsLocal(w.Phase) {
		return nil, fmt.Errorf("the phase %s in %s is not a phase of a run of %s (its runs' worktrees are in %s)", w.Phase, w.Dir, repo.Root, root)
	}
	opts, err := piperun.PhaseOptions(o, w.Dir, w.Phase, w.Env)
	if err != nil {
		return nil, err
	}
	opts.Agents.Brief = piperun.SavedBriefs(w.Dir)
	opts.Observer = workerNotes{p.out}
	rw, err := runner.NewWorker(opts)
	if err != nil {
		return nil, err
	}
	if p.workers == nil {
		p.workers = map[string]*runner.Worker{}
	}
	p.workers[key] = rw
	return announced{rw, p.out}, nil
}

// runWorktree is the name of a run's worktree (piperun's run-N).
var runWorktree = regexp.MustCompile(`^run-[0-9]+$`)

// Close ends the workers made.
func (p *phaseExecutors) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rw := range p.workers {
		rw.Close()
	}
	p.workers = nil
}
