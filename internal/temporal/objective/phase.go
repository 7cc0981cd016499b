package objective

// The implementers' phase of a `hive run` on Temporal is a child machine
// of the run's: the engine, stepped in a RunWorkflow that Workflow
// starts as its child workflow. Between the two machines go explicit
// messages, each in the history:
//
//   - run phase: the pipeline's CmdRunPhase. A worker of the run's tree
//     readies the phase (PhaseStart: the plans' briefings, the phase's
//     spec, on a git remote its integration branch); the workflow starts
//     the child with the spec as its first event.
//   - phase stopped for a human: the child signals its parent
//     (PhaseSignal) with its state; a worker says what that means to the
//     pipeline (PhaseStopped: an EvPhaseDone over budget, or with an
//     implementer's challenge for the architect, or for the human).
//   - answer phase: the pipeline's CmdRunPhase for a phase stopped at its
//     budget, once its human raised it: the workflow signals the raise
//     (phase.Raise) to the same child, which goes on.
//   - phase ended: the child's result; a worker brings its work into the
//     run's tree (PhaseEnded) and says how it ended (EvPhaseDone).
//
// A phase replaced (the architect changed the plans after a challenge) or
// left when the run ends is closed (CloseSignal): its end says nothing.

import (
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/work"
)

const (
	// PhaseActivity carries out one stage of a phase run of the
	// implementers on a worker of the run's tree (Executor.Phase).
	PhaseActivity = "hive-objective-phase"
	// phaseChildChange is the GetVersion change id of running the phase as
	// a child workflow: a run's workflow recorded before had a worker run
	// it, with a workflow of its own, from one long activity.
	phaseChildChange = "hive-objective-phase-child"
)

// PhaseStage is what a worker does for a phase run (PhaseWork).
type PhaseStage string

const (
	// PhaseStart readies the phase in the run's tree and says how its
	// workflow starts (PhaseStep.ID, PhaseStep.Input), or, where nothing is
	// left to do or it cannot start, the event it ends with.
	PhaseStart PhaseStage = "start"
	// PhaseStopped: the phase's workflow stopped for a human (Snapshot).
	PhaseStopped PhaseStage = "stopped"
	// PhaseEnded: the phase's workflow ended (Snapshot, its final state).
	PhaseEnded PhaseStage = "ended"
)

// PhaseWork is one stage of a phase run for a worker: Command is the
// CmdRunPhase it answers; ID and Snapshot are its workflow and its state,
// once started.
type PhaseWork struct {
	Work
	Stage    PhaseStage      `json:"stage"`
	ID       string          `json:"id,omitempty"`
	Snapshot *phase.Snapshot `json:"snapshot,omitempty"`
}

// PhaseStep is what a worker made of a stage: the phase's workflow to
// start (ID, Input), or the events the phase's run ends with.
type PhaseStep struct {
	ID     string             `json:"id,omitempty"`
	Input  *temporal.RunInput `json:"input,omitempty"`
	Events []roleplan.Event   `json:"events,omitempty"`
}

// phaseChild is a phase's workflow that an objective's started: the
// command it answers (a raise moves it to the command that raised it), and
// where it stopped for a human, while it waits.
type phaseChild struct {
	id      string
	cmd     roleplan.Command
	stopped *phase.Snapshot
	closed  bool // replaced, or the run ended: what it says now says nothing
}

// runPhase carries out c, a CmdRunPhase: the phase of c.Job stopped at its
// budget goes on with the raise c allots; any other starts anew, closing
// the one before.
func (p *dispatcher) runPhase(c roleplan.Command) {
	fresh := c.Context != nil && c.Context.Rechecking != nil
	if ch := p.phases[c.Job]; ch != nil {
		if ch.stopped != nil && !fresh {
			p.answerPhase(ch, c)
			return
		}
		p.closePhase(ch)
	}
	p.phaseStage(c, PhaseWork{Stage: PhaseStart}, func(step PhaseStep) {
		if step.Input == nil {
			p.stepAll(step.Events)
			return
		}
		p.startPhase(c, step)
	})
}

// answerPhase lets the phase ch, stopped at its budget, go on with the
// raise c allots, in the same workflow; with nothing to raise it still
// waits, and the machine hears so.
func (p *dispatcher) answerPhase(ch *phaseChild, c roleplan.Command) {
	allot := phase.Budget{Ceilings: work.Ceilings{USD: c.BudgetUSD, Tokens: c.BudgetTokens}}
	ev, ok := phase.Raise(*ch.stopped, allot, workflow.Now(p.ctx))
	ch.cmd = c
	if !ok {
		p.phaseStopped(ch)
		return
	}
	ch.stopped = nil
	p.signal(ch.id, temporal.EventSignal, ev)
	p.step(roleplan.Event{Type: roleplan.EvNote, Job: c.Job, Text: "the phase's plans go on in Temporal workflow " + ch.id})
}

// startPhase starts the phase's workflow as step says, as a child of this
// one: its end, and what it tells (PhaseSignal), come back through sel.
func (p *dispatcher) startPhase(c roleplan.Command, step PhaseStep) {
	ch := &phaseChild{id: step.ID, cmd: c}
	p.phases[c.Job] = ch
	opts := workflow.ChildWorkflowOptions{
		WorkflowID: step.ID,
		TaskQueue:  step.Input.Dispatch.TaskQueue,
		// A run's workflow that ends leaves no phase of its own running.
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_TERMINATE,
	}
	in := *step.Input
	in.Tells = true
	p.pending++
	f := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(p.ctx, opts), temporal.RunWorkflowName, in)
	p.sel.AddFuture(f, func(f workflow.Future) {
		p.pending--
		if p.phases[c.Job] == ch {
			delete(p.phases, c.Job)
		}
		if ch.closed {
			return
		}
		var out temporal.RunResult
		err := f.Get(p.ctx, &out)
		if err == nil && out.State == nil {
			err = sdk.NewApplicationError("the phase's workflow ended without its state", "hive-phase")
		}
		var snap phase.Snapshot
		if err == nil {
			var e *engine.Engine
			if e, err = engine.Restore(*out.State); err == nil {
				snap = e.Snapshot()
			}
		}
		if err != nil {
			p.stepAll(failed(ch.cmd, err))
			return
		}
		p.phaseStage(ch.cmd, PhaseWork{Stage: PhaseEnded, ID: ch.id, Snapshot: &snap}, nil)
	})
}

// phaseNews takes what a phase's workflow told: its plans' ends, for
// whoever follows the run; its stop for a human, for the machine.
func (p *dispatcher) phaseNews(news temporal.PhaseNews) {
	var ch *phaseChild
	for _, open := range p.phases {
		if open.id == news.ID {
			ch = open
		}
	}
	if ch == nil {
		return // a phase replaced, or of a run that ended
	}
	for _, n := range news.Notes {
		p.step(roleplan.Event{Type: roleplan.EvNote, Job: ch.cmd.Job, Text: n})
	}
	if news.Stopped != nil && ch.stopped == nil {
		ch.stopped = news.Stopped
		p.phaseStopped(ch)
	}
}

// phaseStopped has a worker say what the stop of ch means to the machine
// (and, on a git remote, bring the plans merged so far to the run's tree,
// where whoever answers works).
func (p *dispatcher) phaseStopped(ch *phaseChild) {
	p.phaseStage(ch.cmd, PhaseWork{Stage: PhaseStopped, ID: ch.id, Snapshot: ch.stopped}, nil)
}

// closePhase ends the phase ch: replaced by a fresh one, or left by a run
// that ended.
func (p *dispatcher) closePhase(ch *phaseChild) {
	ch.closed = true
	p.signal(ch.id, temporal.CloseSignal, nil)
}

// closePhases ends the phases still open once the run has ended.
func (p *dispatcher) closePhases() {
	jobs := make([]string, 0, len(p.phases))
	for job, ch := range p.phases {
		if !ch.closed {
			jobs = append(jobs, job)
		}
	}
	slices.Sort(jobs) // map order is not the history's
	for _, job := range jobs {
		p.closePhase(p.phases[job])
	}
}

// signal signals the workflow id, counted as work out until it is sent.
func (p *dispatcher) signal(id, name string, arg any) {
	p.pending++
	f := workflow.SignalExternalWorkflow(p.ctx, id, "", name, arg)
	p.sel.AddFuture(f, func(workflow.Future) { p.pending-- })
}

// phaseStage runs stage w of the phase run of c on a worker of the run's
// tree, and hands what it made to then (nil: steps its events); a stage
// that failed ends the phase run as the machine hears it (EvPhaseDone
// with why).
func (p *dispatcher) phaseStage(c roleplan.Command, w PhaseWork, then func(PhaseStep)) {
	opts := workflow.ActivityOptions{
		TaskQueue:           p.d.TaskQueue,
		StartToCloseTimeout: p.d.Command,
		HeartbeatTimeout:    p.d.Heartbeat,
		RetryPolicy:         &sdk.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	}
	w.Work = Work{Workflow: p.workflow, Run: p.d.Run, Command: c, State: p.snapshot(), Where: p.d.Where}
	p.pending++
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(p.ctx, opts), PhaseActivity, w)
	p.sel.AddFuture(f, func(f workflow.Future) {
		p.pending--
		var step PhaseStep
		if err := f.Get(p.ctx, &step); err != nil {
			p.stepAll(failed(c, err))
			return
		}
		if then == nil {
			p.stepAll(step.Events)
			return
		}
		then(step)
	})
}

// stepAll steps evs in order.
func (p *dispatcher) stepAll(evs []roleplan.Event) {
	for _, ev := range evs {
		p.step(ev)
	}
}
