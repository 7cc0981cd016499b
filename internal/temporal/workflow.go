package temporal

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
)

// The names a run's workflow is known by in Temporal.
const (
	// RunWorkflowName is the workflow type of one hive run.
	RunWorkflowName = "hive-run"
	// EventSignal carries one phase.Event to step.
	EventSignal = "hive-event"
	// CloseSignal ends the workflow once its run is delivered: the engine
	// itself never ends a run's history (a finished run still hears from
	// agents that are stopping).
	CloseSignal = "hive-close"
	// SessionSignal tells a dispatching workflow which task queue reaches
	// the worker that holds an agent session (a SessionHost): messages to
	// the agent (answers, permissions) must go to that worker.
	SessionSignal = "hive-session"
	// StateQuery answers the engine's Snapshot.
	StateQuery = "hive-state"
	// AnswersQuery answers the Answers after a sequence number (an int).
	AnswersQuery = "hive-answers"
	// engineChange is the GetVersion change id that records the engine
	// version a history was written by.
	engineChange = "hive-engine"
	// sessionRoutingChange is the GetVersion change id of sending messages
	// to the worker that holds the session (SessionSignal).
	sessionRoutingChange = "hive-session-routing"
	// drainChange is the GetVersion change id of holding new work back
	// once the history is long, to continue as new (Limits.DrainHistory).
	drainChange = "hive-drain"
	// stopHostChange is the GetVersion change id of telling the worker
	// that holds a session to stop it, beside cancelling its activity.
	stopHostChange = "hive-stop-host"
	// messageCancelChange is the GetVersion change id of cancelling, once
	// a session has ended, the messages to its worker not yet taken.
	messageCancelChange = "hive-message-cancel"
	// firstEngine is the first engine version that ran as a workflow: a
	// history it wrote must replay on every later hive (the recorded
	// histories in testdata/histories hold them to it).
	firstEngine = 6
)

// Limits bound a workflow run's history, as inputs of the workflow (zero:
// the defaults, which hive never changes; tests make them small). They are
// carried across continue-as-new.
type Limits struct {
	// MaxEvents is how many events one workflow run steps before it
	// continues as new, at the first moment nothing it started is out:
	// Temporal warns about histories past a few thousand events, and a
	// run of hundreds of plans has more than that (2,000).
	MaxEvents int `json:"max_events,omitempty"`
	// DrainHistory is the history length (Temporal's events, not the
	// machine's) past which a dispatching workflow whose work never
	// paused (agents always at work, a session waiting days for its
	// human) starts no more work: what is out ends, then it continues as
	// new with the work it held back, far below the server's limit
	// (51,200 events), where a workflow is terminated (20,000).
	DrainHistory int `json:"drain_history,omitempty"`
	// RecordEvery is how long the events an objective's workflow stepped
	// wait, at most, to reach the run's folder's journal while the run
	// works: they go in batches, an activity each, so that a run of quick
	// steps is not slowed by one for each step (2 s).
	RecordEvery time.Duration `json:"record_every,omitempty"`
}

// EventsPerRun is MaxEvents, or its default.
func (l Limits) EventsPerRun() int {
	if l.MaxEvents > 0 {
		return l.MaxEvents
	}
	return 2000
}

func (l Limits) drainHistory() int {
	if l.DrainHistory > 0 {
		return l.DrainHistory
	}
	return 20000
}

// RecordInterval is RecordEvery, or its default.
func (l Limits) RecordInterval() time.Duration {
	if l.RecordEvery > 0 {
		return l.RecordEvery
	}
	return 2 * time.Second
}

// RunInput starts a run's workflow: empty for a new run; the engine's
// exported state and the events stepped so far when it continues as new.
// With Dispatch the workflow carries the engine's commands out itself (as
// activities on the workers of TaskQueue, timers for its wakes) and ends
// once the run is finished; without it it only keeps them in its answers,
// for a runner that executes them, and ends on CloseSignal.
type RunInput struct {
	State    *phase.State `json:"state,omitempty"`
	Seq      int          `json:"seq,omitempty"`
	Dispatch *Dispatch    `json:"dispatch,omitempty"`
	// Held are the commands a dispatching workflow run held back to
	// continue as new: the next one carries them out first.
	Held   []phase.Command `json:"held,omitempty"`
	Limits Limits          `json:"limits,omitempty"`
	// Start is the run's first event (EvRunStarted, with its spec), for
	// a workflow started with its run: the phase of hive run's
	// implementers, a child of the run's workflow.
	Start *phase.Event `json:"start,omitempty"`
	// Tells: the workflow tells its parent (PhaseSignal) what the parent
	// waits for besides its end: that the run stopped for a human, and
	// each plan that ended. Carried across continue-as-new.
	Tells bool `json:"tells,omitempty"`
	// Recent are the last answers of the workflow run before this one
	// (RecentAnswers at most), which this one still gives a follower
	// that had not read them.
	Recent []Answer `json:"recent,omitempty"`
}

// RecentAnswers is how many answers a workflow run carries into the
// next: a follower reads them every 300 ms, so one that lags across the
// continue-as-new misses a few at most.
const RecentAnswers = 50

// AnswersSince are the answers of all (recent, carried from the workflow run
// before, then this one's) after the sequence number after.
func AnswersSince[A any](recent, answers []A, seq func(A) int, after int) []A {
	all := answers
	if len(recent) > 0 && (len(answers) == 0 || seq(answers[0]) > after+1) {
		all = append(slices.Clone(recent), answers...)
	}
	for i, a := range all {
		if seq(a) > after {
			return all[i:]
		}
	}
	return nil
}

// CarriedAnswers are the last RecentAnswers of recent and answers, to carry into
// the next workflow run.
func CarriedAnswers[A any](recent, answers []A) []A {
	all := append(slices.Clone(recent), answers...)
	return all[max(0, len(all)-RecentAnswers):]
}

// Answer is what the engine answered to one event: its commands, or the
// error it refused the event with.
type Answer struct {
	Seq      int             `json:"seq"`
	Event    phase.EventType `json:"event"`
	Commands []phase.Command `json:"commands,omitempty"`
	Err      string          `json:"error,omitempty"`
}

// RunResult is what a closed workflow run returns: the answers of this
// workflow run (since the last continue-as-new) and the final state.
type RunResult struct {
	Answers []Answer     `json:"answers"`
	State   *phase.State `json:"state"`
}

// RunWorkflow is one hive run: the engine, stepped with each signalled
// event in history order. It ends on CloseSignal, and continues as new
// after Limits.MaxEvents events.
func RunWorkflow(ctx workflow.Context, in RunInput) (RunResult, error) {
	// The engine version goes into the history: a history from an engine
	// outside [firstEngine, phase.Version] (a newer hive's) fails its
	// workflow task with both versions named, instead of replaying into
	// another state. The engine decides as the version its run-started
	// event names (a dispatching workflow carries its commands out as
	// activities, so a replay must decide alike): an event that names none
	// (sent by a hive before it did) runs on the recorded version.
	recorded := int(workflow.GetVersion(ctx, engineChange, firstEngine, phase.Version))
	// Runs started before messages went to the session's worker send them
	// to the run's queue, as they did: their sessions never said where
	// they were.
	routed := workflow.GetVersion(ctx, sessionRoutingChange, workflow.DefaultVersion, 1) == 1
	// Runs started before the drain kept working past any length.
	drains := workflow.GetVersion(ctx, drainChange, workflow.DefaultVersion, 1) == 1
	// Runs started before stops went to the session's worker only cancel
	// its activity.
	stopsHost := workflow.GetVersion(ctx, stopHostChange, workflow.DefaultVersion, 1) == 1
	// Runs started before a session's end cancelled the messages its dead
	// worker never took waited for them.
	cancelMessages := workflow.GetVersion(ctx, messageCancelChange, workflow.DefaultVersion, 1) == 1
	e := engine.New()
	if in.State != nil {
		var err error
		if e, err = engine.Restore(*in.State); err != nil {
			return RunResult{}, fmt.Errorf("restore the engine: %w", err)
		}
	}
	seq := in.Seq
	var answers []Answer
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (phase.Snapshot, error) {
		return e.Snapshot(), nil
	}); err != nil {
		return RunResult{}, err
	}
	if err := workflow.SetQueryHandler(ctx, AnswersQuery, func(after int) ([]Answer, error) {
		return AnswersSince(in.Recent, answers, func(a Answer) int { return a.Seq }, after), nil
	}); err != nil {
		return RunResult{}, err
	}
	events := workflow.GetSignalChannel(ctx, EventSignal)
	hosts := workflow.GetSignalChannel(ctx, SessionSignal)
	closing := workflow.GetSignalChannel(ctx, CloseSignal)
	closed := false
	sel := workflow.NewSelector(ctx)
	var disp *dispatcher
	step := func(ev phase.Event) {
		seq++
		if (ev.Type == phase.EvRunStarted || ev.Type == phase.EvResumed) && ev.Version == 0 {
			ev.Version = recorded
		}
		if ev.Time.IsZero() {
			ev.Time = workflow.Now(ctx) // a worker's event: the workflow's clock, replayed alike
		}
		cmds, err := e.Step(ev)
		a := Answer{Seq: seq, Event: ev.Type, Commands: cmds}
		if err != nil {
			a.Err = err.Error()
		}
		answers = append(answers, a)
		if disp != nil {
			disp.carry(cmds)
			if in.Tells {
				disp.tell(ev, cmds, err)
			}
		}
	}
	if in.Dispatch != nil {
		disp = &dispatcher{d: in.Dispatch, ctx: ctx, sel: sel, step: step, snapshot: e.Snapshot, routed: routed, stopsHost: stopsHost,
			cancelMessages: cancelMessages, messages: map[sessionKey]messageScope{},
			sessions: map[sessionKey]workflow.CancelFunc{}, hosts: map[sessionKey]string{}, held: map[sessionKey][]phase.Command{}}
		sel.AddReceive(hosts, func(c workflow.ReceiveChannel, _ bool) {
			var h SessionHost
			c.Receive(ctx, &h)
			disp.hosted(h)
		})
		disp.carry(in.Held)
	}
	if in.Start != nil {
		step(*in.Start)
	}
	sel.AddReceive(events, func(c workflow.ReceiveChannel, _ bool) {
		var ev phase.Event
		c.Receive(ctx, &ev)
		step(ev)
	})
	sel.AddReceive(closing, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		closed = true
	})
	// drain steps the events already signalled, in order: none may be
	// lost when this workflow run ends or continues as new.
	drain := func() {
		for {
			var ev phase.Event
			if !events.ReceiveAsync(&ev) {
				return
			}
			step(ev)
		}
	}
	// A dispatching workflow ends once its run is finished and nothing it
	// started is still out; any other ends on CloseSignal.
	done := func() bool {
		return closed || (disp != nil && disp.pending == 0 && e.Snapshot().Finished)
	}
	for !done() {
		sel.Select(ctx)
		if done() || seq-in.Seq < in.Limits.EventsPerRun() {
			continue
		}
		if disp != nil && drains && workflow.GetInfo(ctx).GetCurrentHistoryLength() >= in.Limits.drainHistory() {
			disp.draining = true
		}
		if disp == nil || disp.pending == 0 {
			drain() // what it starts keeps this run going; a draining one holds it
			if disp == nil || disp.pending == 0 {
				state := e.Export()
				next := RunInput{State: &state, Seq: seq, Dispatch: in.Dispatch, Limits: in.Limits, Tells: in.Tells, Recent: CarriedAnswers(in.Recent, answers)}
				if disp != nil {
					next.Held = disp.heldOver()
				}
				return RunResult{}, workflow.NewContinueAsNewError(ctx, RunWorkflowName, next)
			}
		}
	}
	drain()
	state := e.Export()
	return RunResult{Answers: answers, State: &state}, nil
}
