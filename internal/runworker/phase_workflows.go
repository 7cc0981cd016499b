package runworker

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/workspace"
	"github.com/hivectl/hive/internal/temporal"
)

// phaseWorkflows runs the implementers' phase of a Temporal run of hive
// run as a phase workflow of its own: the engine, dispatching the plans'
// agent sessions to every `hive worker --backend temporal` without a
// PHASE (the plans' task queue, PlansQueue), in the run's worktree,
// which those workers share. The phase's state lives in that workflow's
// history, not in this worker: a driver that dies leaves it working, and
// the next driver attaches to it instead of running its plans again.
//
// With a git remote the workers need not share the worktree: the phase
// goes to the remote as a run's integration branch of its own (the run's
// worktree's tip, the architect's plans committed), each worker runs its
// plans in worktrees of its own clone, wherever it is, and merges them
// there, as execute-phase's workers of a remote do; when the phase ends,
// the run's worktree is fast-forwarded to the merged work.
type phaseWorkflows struct {
	c      client.Client
	queue  string // the plans' task queue
	run    string // the pipeline's workflow id, which names the phases'
	stall  time.Duration
	agent  string // the run's --agent, for its implementers on every worker
	remote string // the run's --git-remote; "" when the workers share the worktree
}

// PlansQueue is the task queue of the plans of hive run's phases.
func PlansQueue(queue string) string { return queue + "-plans" }

// phaseWorkflowID names the workflow of one phase run of a pipeline run:
// by the run's number and the moment it was created, since numbers start
// again in a new journal (a new clone in the same folder) while the
// server keeps the workflows of the old one.
func phaseWorkflowID(pipelineID string, w phaserun.Work) string {
	return pipelineID + "-" + phaseRunName(w)
}

// phaseRunName tells one phase run of a pipeline run from any other: by the
// run (RunName), the job and its attempt.
func phaseRunName(w phaserun.Work) string {
	return fmt.Sprintf("%s-%s-%d", RunName(w.Run), w.Job, w.Attempt)
}

// RunName tells a pipeline run from any other: by its number and the
// moment it was created, since numbers start again in a new journal (a
// new clone in the same folder) while the server and the remote keep
// what the old one left.
func RunName(run journal.Run) string {
	h := fnv.New32a()
	h.Write([]byte(run.Started.UTC().Format(time.RFC3339Nano)))
	return fmt.Sprintf("%d-%08x", run.ID, h.Sum32())
}

// phaseNamespace names the branches of a phase run on the git remote
// (hive/run-…/integration, hive/run-…/PLAN): a run's own, whatever other
// runs and phases share the remote.
func phaseNamespace(w phaserun.Work) string {
	return "run-" + unsafeBranchChars.ReplaceAllString(phaseRunName(w), "-")
}

// unsafeBranchChars are what a job's name might hold that a branch name
// should not: dots too, since git refuses "..", a name ending in ".lock"
// and a component beginning with one.
var unsafeBranchChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// RunPhase implements phaserun.Runner.
func (t *phaseWorkflows) RunPhase(ctx context.Context, w phaserun.Work) (runner.Result, error) {
	o := w.Options
	if t.remote == "" {
		o.Git = integration.Git{} // the workers share the run's worktree, where plans run side by side on files of their own
	} else {
		o.Git = integration.Git{Remote: t.remote, Worktrees: true, Namespace: phaseNamespace(w)}
	}
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
			if t.remote != "" {
				// What it merged came to the run's worktree when it
				// stopped; nothing goes on from its branches.
				if err := workspace.ClearRemote(ctx, o.Repo, t.remote, phaseNamespace(e)); err != nil {
					o.Observer.Note("temporal", "remove the earlier phase run's branches from "+t.remote+": "+err.Error())
				}
			}
		case status == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
			if t.remote != "" {
				o.Git.Namespace = phaseNamespace(e) // its branches, not this attempt's
			}
			return t.goOn(ctx, id, o)
		case status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED && a == w.Attempt:
			o.Observer.Note("temporal", "the phase's plans ran in Temporal workflow "+id)
			return t.follow(ctx, t.c.GetWorkflow(ctx, id, ""), o, 0)
		}
	}
	id := phaseWorkflowID(t.run, w)
	where := ""
	if t.remote != "" {
		where = ", their work shared through the git remote " + t.remote + " on branches hive/" + o.Git.Namespace + "/…"
	}
	o.Observer.Note("temporal", "the phase's plans run on the workers of task queue "+t.queue+" (Temporal workflow "+id+")"+where)
	d := temporal.DispatchFor(t.queue, t.stall)
	d.Where = &temporal.Where{Dir: o.Repo.Root, Phase: o.Phase.Dir, Env: w.Env, Agent: t.agent}
	if t.remote != "" {
		if err := phaserun.PublishBriefs(ctx, o); err != nil {
			return runner.Result{}, err
		}
		d.Where.Dir, d.Where.Remote, d.Where.Namespace = "", t.remote, o.Git.Namespace
	} else if err := phaserun.SaveBriefs(o); err != nil {
		return runner.Result{}, err
	}
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
	if spec.DonePlans() == len(spec.Plans) {
		t.c.TerminateWorkflow(ctx, run.GetID(), "", "nothing to do")
		return runner.Result{NothingToDo: true}, nil
	}
	// Unattended: the engine stops for a human (CmdStopForHuman) at what
	// only one may answer, and the pipeline asks.
	ev := phase.Event{Type: phase.EvRunStarted, Time: o.Now().UTC(), Spec: &spec, Version: phase.Version}
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
	snap, err := temporal.State(ctx, t.c, run)
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
		cp := phaserun.BudgetCheckpoint(snap)
		text := ""
		if cp != nil {
			text = phaserun.RaiseText(snap, o.Agents.Budget)
		}
		if text == "" {
			return runner.Result{Run: journal.Run{ID: phaseRunNumber(id), Phase: o.Phase.Dir}, Snapshot: snap}, &runner.NeedsHumanError{Checkpoints: snap.Queue}
		}
		ev := phase.Event{Type: phase.EvAnswer, Time: o.Now().UTC(), Plan: phase.BudgetID, CheckpointID: cp.ID, Text: text, By: "hive run"}
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
func (t *phaseWorkflows) stopped(ctx context.Context, id string, snap phase.Snapshot) (stopped bool, last int, err error) {
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
	if a.Event == phase.EvResumed {
		stopped = false
	}
	for _, c := range a.Commands {
		switch c.Type {
		case phase.CmdStopForHuman:
			stopped = true
		case phase.CmdStartAgent:
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
			if t.remote != "" {
				// The merged work comes to the run's worktree (unless a
				// driver before this one brought it before it died), and
				// the run's branches leave the remote.
				for _, n := range workspace.EndRemote(ctx, o.Repo, o.Phase, o.Git, res.Snapshot) {
					o.Observer.Note("temporal", n)
				}
			}
			// STATE.md and ROADMAP.md as a local phase run leaves them,
			// once: a driver that died after committing them did its part.
			subject := fmt.Sprintf("docs(%s): phase run %s", o.Phase.Number, res.Snapshot.Outcome)
			if last, err := o.Repo.Git(ctx, "log", "-1", "--format=%s"); err != nil || strings.TrimSpace(last) != subject {
				for _, n := range workspace.DeliverShared(ctx, o.Repo, o.Phase, res.Snapshot) {
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
			snap, err := temporal.State(ctx, t.c, run)
			if err != nil {
				continue
			}
			res.Snapshot = snap
			if t.tell(o, answers, &seen, snap) {
				if t.remote != "" {
					// Whoever answers (the architect, after a challenge)
					// works on the plans merged so far.
					if err := workspace.BringMerged(ctx, o.Repo, o.Phase, o.Git); err != nil {
						o.Observer.Note("temporal", err.Error())
					}
				}
				return res, &runner.NeedsHumanError{Checkpoints: snap.Queue}
			}
		}
	}
}

// tell passes the answers after *seen to o's observer, and says whether
// the run stopped for a human.
func (t *phaseWorkflows) tell(o runner.Options, answers []temporal.Answer, seen *int, snap phase.Snapshot) (stopped bool) {
	for _, a := range answers {
		if a.Seq <= *seen {
			continue
		}
		*seen = a.Seq
		o.Observer.Event(phase.Event{Type: a.Event}, snap)
		for _, c := range a.Commands {
			o.Observer.Command(c, snap)
		}
		stopped = stopsFor(a, stopped)
	}
	return stopped
}

// phaseRunNumber stands for a phase's workflow where the pipeline counts a
// phase run's spending by its journal run (roleplan.Event.PhaseRun):
// negative, so that it meets no journal's.
func phaseRunNumber(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return -int64(h.Sum64() >> 2)
}
