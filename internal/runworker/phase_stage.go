package runworker

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/workspace"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
)

// phaseStage carries out, on a worker of the run's tree, a stage of the
// implementers' phase of a Temporal run of hive run, whose engine runs in
// a workflow of its own, a child of the run's (see temporal's
// phase_child.go): the plans' agent sessions go to every `hive worker
// --backend temporal` without a PHASE (the plans' task queue,
// PlansQueue), in the run's worktree, which those workers share.
//
// With a git remote the workers need not share the worktree: the phase
// goes to the remote as a run's integration branch of its own (the run's
// worktree's tip, the architect's plans committed), each worker runs its
// plans in worktrees of its own clone, wherever it is, and merges them
// there, as execute-phase's workers of a remote do; when the phase ends,
// the run's worktree is fast-forwarded to the merged work.
type phaseStage struct {
	queue  string // the plans' task queue
	run    string // the pipeline's workflow id, which names the phases'
	stall  time.Duration
	agent  string // the run's --agent, for its implementers on every worker
	remote string // the run's --git-remote; "" when the workers share the worktree
	// work is the stage to carry out; nil for the phase's command of a
	// run's workflow that an earlier hive started (errEarlierPhase).
	work *objective.PhaseWork
	// started is how the phase's workflow starts, once readied.
	started *objective.PhaseStep
}

// errEarlierPhase is what a worker says of the phase's command of a run's
// workflow recorded before the phase was its child workflow.
var errEarlierPhase = errors.New("this run's workflow was started by an earlier hive, which ran the phase of its implementers from one worker's activity: finish it with that hive (one from before the phase ran as a child workflow), or start the run again")

// errPhaseReady is what the start stage ends with once the phase's
// workflow is ready to start (phaseStage.started): no event of it reaches
// the machine.
var errPhaseReady = errors.New("the phase's workflow is ready to start")

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

// RunPhase implements phaserun.Runner: it carries out the stage.
func (t *phaseStage) RunPhase(ctx context.Context, w phaserun.Work) (runner.Result, error) {
	if t.work == nil {
		return runner.Result{}, errEarlierPhase
	}
	o := w.Options
	if t.remote == "" {
		o.Git = integration.Git{} // the workers share the run's worktree, where plans run side by side on files of their own
	} else {
		o.Git = integration.Git{Remote: t.remote, Worktrees: true, Namespace: phaseNamespace(w)}
	}
	if t.work.Stage == objective.PhaseStart {
		return t.start(ctx, w, o)
	}
	if t.work.Snapshot == nil {
		return runner.Result{}, fmt.Errorf("the phase's %s stage came without its state", t.work.Stage)
	}
	if t.remote != "" {
		// The branches of the attempt that started the phase's workflow:
		// a raise goes on in it under a later attempt.
		o.Git.Namespace = "run-" + unsafeBranchChars.ReplaceAllString(strings.TrimPrefix(t.work.ID, t.run+"-"), "-")
	}
	snap := *t.work.Snapshot
	res := runner.Result{Run: journal.Run{ID: phaseRunNumber(t.work.ID), Phase: o.Phase.Dir}, Snapshot: snap}
	if t.work.Stage == objective.PhaseStopped {
		if t.remote != "" {
			// Whoever answers (the architect, after a challenge) works on
			// the plans merged so far.
			if err := workspace.BringMerged(ctx, o.Repo, o.Phase, o.Git); err != nil {
				o.Observer.Note("temporal", err.Error())
			}
		}
		return res, &runner.NeedsHumanError{Checkpoints: snap.Queue}
	}
	if t.remote != "" {
		// The merged work comes to the run's worktree (unless a worker
		// before this one brought it before it died), and the run's
		// branches leave the remote.
		for _, n := range workspace.EndRemote(ctx, o.Repo, o.Phase, o.Git, snap) {
			o.Observer.Note("temporal", n)
		}
	}
	// STATE.md and ROADMAP.md as a local phase run leaves them, once: a
	// worker that died after committing them did its part.
	subject := fmt.Sprintf("docs(%s): phase run %s", o.Phase.Number, snap.Outcome)
	if last, err := o.Repo.Git(ctx, "log", "-1", "--format=%s"); err != nil || strings.TrimSpace(last) != subject {
		for _, n := range workspace.DeliverShared(ctx, o.Repo, o.Phase, snap) {
			o.Observer.Note("temporal", n)
		}
	}
	return res, nil
}

// start readies the phase in the run's tree for its workflow: the plans'
// briefings for the workers, the phase's spec (on a remote, its
// integration branch), and says how the workflow starts (t.started);
// where every plan is done already, nothing starts.
func (t *phaseStage) start(ctx context.Context, w phaserun.Work, o runner.Options) (runner.Result, error) {
	if w.Fresh && t.remote != "" {
		// The architect changed the plans: nothing goes on from the
		// branches of the attempts before, whose work came to the run's
		// worktree when they stopped.
		for a := 1; a < w.Attempt; a++ {
			e := w
			e.Attempt = a
			if err := workspace.ClearRemote(ctx, o.Repo, t.remote, phaseNamespace(e)); err != nil {
				o.Observer.Note("temporal", "remove the earlier phase run's branches from "+t.remote+": "+err.Error())
			}
		}
	}
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
	spec, err := runner.PhaseSpec(ctx, o)
	if err != nil {
		return runner.Result{}, err
	}
	if spec.DonePlans() == len(spec.Plans) {
		return runner.Result{NothingToDo: true}, nil
	}
	id := phaseWorkflowID(t.run, w)
	where := ""
	if t.remote != "" {
		where = ", their work shared through the git remote " + t.remote + " on branches hive/" + o.Git.Namespace + "/…"
	}
	o.Observer.Note("temporal", "the phase's plans run on the workers of task queue "+t.queue+" (Temporal workflow "+id+")"+where)
	// Unattended: the engine stops for a human (CmdStopForHuman) at what
	// only one may answer, and the pipeline asks.
	start := phase.Event{Type: phase.EvRunStarted, Time: o.Now().UTC(), Spec: &spec, Version: phase.Version}
	t.started = &objective.PhaseStep{ID: id, Input: &temporal.RunInput{Dispatch: d, Start: &start}}
	return runner.Result{}, errPhaseReady
}

// phaseRunNumber stands for a phase's workflow where the pipeline counts a
// phase run's spending by its journal run (roleplan.Event.PhaseRun):
// negative, so that it meets no journal's.
func phaseRunNumber(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return -int64(h.Sum64() >> 2)
}
