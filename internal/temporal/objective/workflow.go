package objective

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"slices"
	"time"

	sdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
)

// The names a `hive run "objective"` is known by in Temporal when its
// pipeline machine runs as workflow code (Workflow).
const (
	// WorkflowName is the workflow type of one `hive run`.
	WorkflowName = "hive-objective"
	// EventSignal carries one roleplan.Event to step: a role
	// agent's output on the way (signalled by its activity), a human's
	// answer.
	EventSignal = "hive-objective-event"
	// CommandActivity carries out one pipeline command on a
	// worker (Executor).
	CommandActivity = "hive-objective-command"
	// FinishActivity delivers the ended run on a worker of its
	// folder (Executor.Finish).
	FinishActivity = "hive-objective-finish"
	// RecordActivity keeps the run's folder's journal up to the
	// events stepped (Executor.Record).
	RecordActivity = "hive-objective-record"
	// objectiveChange is the GetVersion change id of the workflow's own
	// code: a later change of how it carries commands out is a version
	// of it, so that a history recorded before replays as it ran.
	objectiveChange = "hive-objective"
)

// Input starts an objective's workflow. A new run names its Spec
// (the workflow steps roleplan.EvStarted with it first); a run resumed
// from its folder's journal names the events journaled (Resume), which
// the workflow steps again before roleplan.EvResumed; a workflow run that
// continues as new carries Stepped, the events stepped so far, Synced,
// how many of them the folder's journal holds, Held, the timers it had
// set, and Recent, its last answers (gzipped JSON of []Answer, the last
// temporal.RecentAnswers), which the next one still gives a follower that
// had not read them. Without Dispatch the workflow only keeps
// the machine's commands in its answers, for whoever carries them out,
// and ends on CloseSignal; with it the workflow carries them out itself,
// as activities on the workers of Dispatch.TaskQueue, and ends once the
// run is finished and nothing it started is out.
type Input struct {
	Spec     *roleplan.Spec     `json:"spec,omitempty"`
	Resume   []roleplan.Event   `json:"resume,omitempty"`
	Dispatch *Dispatch          `json:"dispatch,omitempty"`
	Stepped  []byte             `json:"stepped,omitempty"` // gzipped JSON of []roleplan.Event
	Synced   int                `json:"synced,omitempty"`
	Seq      int                `json:"seq,omitempty"`
	Held     []roleplan.Command `json:"held,omitempty"`
	Limits   temporal.Limits    `json:"limits,omitempty"`
	Recent   []byte             `json:"recent,omitempty"`
}

// Dispatch is how an objective's workflow carries its commands
// out.
type Dispatch struct {
	// TaskQueue is the queue of the workers that carry out the run's
	// commands; FolderQueue that of the workers of the run's folder,
	// which keep its journal and deliver it ("": TaskQueue's).
	TaskQueue   string `json:"task_queue"`
	FolderQueue string `json:"folder_queue,omitempty"`
	// Heartbeat is how long a command's worker may go silent before it is
	// taken for dead: a role session then counts as an agent that crashed
	// (the machine starts it again, on whichever worker takes it); a
	// check is tried again elsewhere.
	Heartbeat time.Duration `json:"heartbeat"`
	// Session bounds a role session, the phase and a pull request's
	// watch; Command any other command.
	Session time.Duration `json:"session"`
	Command time.Duration `json:"command"`
	// Where is the run's tree (Dir, or Remote and Namespace), its
	// agents' environment and agent program, for the executors; Run the
	// run's number in its folder's journal, which names its worktree.
	Where *temporal.Where `json:"where,omitempty"`
	Run   int64           `json:"run,omitempty"`
}

// sessionKey names a role's session: its job and attempt.
type sessionKey struct {
	job     string
	attempt int
}

// folder is the queue of the workers of the run's folder.
func (d *Dispatch) folder() string { return cmp.Or(d.FolderQueue, d.TaskQueue) }

// Work is one pipeline command for a worker, with what the worker
// cannot know: the run (its workflow's id, and its number in its folder's
// journal), the machine's state when the command was given (the
// objective, the roles' reports, the decisions) and the run's tree.
type Work struct {
	Workflow string            `json:"workflow"`
	Run      int64             `json:"run,omitempty"`
	Command  roleplan.Command  `json:"command"`
	State    roleplan.Snapshot `json:"state"`
	Where    *temporal.Where   `json:"where,omitempty"`
}

// Answer is what the machine answered to one event (Stepped,
// stamped with the time it was stepped): its commands, or the error it
// refused the event with; or a worker's note (Event roleplan.EvNote),
// which the machine never sees. Seq numbers both.
type Answer struct {
	Seq      int                `json:"seq"`
	Event    roleplan.EventType `json:"event"`
	Stepped  roleplan.Event     `json:"stepped"`
	Commands []roleplan.Command `json:"commands,omitempty"`
	Err      string             `json:"error,omitempty"`
}

// Result is what an objective's workflow returns: the answers of
// its last workflow run and the machine's final state; for a dispatching
// workflow, how the run was delivered (Delivery, the executor's, opaque
// here), or why it could not be (DeliveryError).
type Result struct {
	Answers       []Answer          `json:"answers"`
	State         roleplan.Snapshot `json:"state"`
	Delivery      json.RawMessage   `json:"delivery,omitempty"`
	DeliveryError string            `json:"delivery_error,omitempty"`
}

// End is an ended run for a worker of its folder to deliver:
// Stepped is every event its machine stepped, in order (gzipped JSON of
// []roleplan.Event), for the folder's journal.
type End struct {
	Workflow string          `json:"workflow"`
	Run      int64           `json:"run,omitempty"`
	Stepped  []byte          `json:"stepped"`
	Where    *temporal.Where `json:"where,omitempty"`
}

// Events are the events e's machine stepped.
func (e End) Events() ([]roleplan.Event, error) { return unzipEvents(e.Stepped) }

// Records are events a run's machine stepped, for its folder's
// journal: Stepped (gzipped JSON of []roleplan.Event) from the From-th
// (counted from 0) on.
type Records struct {
	Run     int64  `json:"run"`
	From    int    `json:"from"`
	Stepped []byte `json:"stepped"`
}

// Events are the events r carries.
func (r Records) Events() ([]roleplan.Event, error) { return unzipEvents(r.Stepped) }

func unzipEvents(data []byte) ([]roleplan.Event, error) {
	var evs []roleplan.Event
	return evs, gunzipJSON(data, &evs)
}

// Workflow is one `hive run "objective"`: the pipeline machine
// stepped in workflow code, as RunWorkflow steps the engine. Events come
// as signals (EventSignal) and from the activities it started,
// each stepped in the order the history records them, so that a replay
// on any worker rebuilds the same machine; the state is a query
// (StateQuery), the answers too (AnswersQuery). The machine decides by
// the rules its run's Spec names, so a history keeps its meaning under a
// later hive. After Limits.MaxEvents events it continues as new at the
// first moment no activity is out, carrying the events stepped (the
// machine is rebuilt by stepping them again) and its timers.
func Workflow(ctx workflow.Context, in Input) (Result, error) {
	workflow.GetVersion(ctx, objectiveChange, 1, 1)
	// A run's workflow recorded before the phase was its child had a
	// worker run the phase from one long activity.
	children := workflow.GetVersion(ctx, phaseChildChange, workflow.DefaultVersion, 1) == 1
	m := pipeline.New()
	var stepped []roleplan.Event
	if in.Stepped != nil {
		if err := gunzipJSON(in.Stepped, &stepped); err != nil {
			return Result{}, sdk.NewNonRetryableApplicationError("the run's workflow before this one: "+err.Error(), "hive-refused", err)
		}
		for _, ev := range stepped {
			m.Step(ev) // an event refused then changes nothing now either
		}
	}
	synced := in.Synced
	if in.Stepped == nil && in.Resume != nil {
		for _, ev := range in.Resume {
			m.Step(ev) // as the journal's replay does
		}
		stepped, synced = slices.Clone(in.Resume), len(in.Resume)
	}
	seq := in.Seq
	var answers, recent []Answer
	if in.Recent != nil && gunzipJSON(in.Recent, &recent) != nil {
		recent = nil // only a follower's display lines are lost
	}
	if err := workflow.SetQueryHandler(ctx, temporal.StateQuery, func() (roleplan.Snapshot, error) {
		return m.Snapshot(), nil
	}); err != nil {
		return Result{}, err
	}
	if err := workflow.SetQueryHandler(ctx, temporal.AnswersQuery, func(after int) ([]Answer, error) {
		return temporal.AnswersSince(recent, answers, func(a Answer) int { return a.Seq }, after), nil
	}); err != nil {
		return Result{}, err
	}
	sel := workflow.NewSelector(ctx)
	var out *dispatcher
	step := func(ev roleplan.Event) {
		seq++
		if ev.Time.IsZero() {
			ev.Time = workflow.Now(ctx) // a worker's event: the workflow's clock, replayed alike
		}
		if ev.Type == roleplan.EvNote {
			// A worker's note, for the run's followers: told, not stepped.
			answers = append(answers, Answer{Seq: seq, Event: ev.Type, Stepped: ev})
			return
		}
		cmds, err := m.Step(ev)
		a := Answer{Seq: seq, Event: ev.Type, Stepped: ev, Commands: cmds}
		if err != nil {
			a.Err = err.Error()
		}
		answers = append(answers, a)
		stepped = append(stepped, ev)
		if out != nil {
			out.carry(cmds)
			if out.children && m.Finished() {
				out.closePhases() // their end says nothing now
			}
			// A question goes to the folder's journal at once (hive
			// status shows it); the rest in batches.
			out.record(slices.ContainsFunc(cmds, func(c roleplan.Command) bool { return c.Type == roleplan.CmdCheckpoint }))
		}
	}
	events := workflow.GetSignalChannel(ctx, EventSignal)
	closing := workflow.GetSignalChannel(ctx, temporal.CloseSignal)
	closed := false
	sel.AddReceive(events, func(c workflow.ReceiveChannel, _ bool) {
		var ev roleplan.Event
		c.Receive(ctx, &ev)
		step(ev)
	})
	sel.AddReceive(closing, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		closed = true
	})
	if in.Dispatch != nil {
		out = &dispatcher{d: in.Dispatch, ctx: ctx, sel: sel, step: step, snapshot: m.Snapshot, every: in.Limits.RecordInterval(),
			workflow: workflow.GetInfo(ctx).WorkflowExecution.ID, sessions: map[sessionKey]workflow.CancelFunc{},
			stepped: func() []roleplan.Event { return stepped }, synced: synced,
			children: children, phases: map[string]*phaseChild{}}
		if children {
			sel.AddReceive(workflow.GetSignalChannel(ctx, temporal.PhaseSignal), func(c workflow.ReceiveChannel, _ bool) {
				var news temporal.PhaseNews
				c.Receive(ctx, &news)
				out.phaseNews(news)
			})
		}
		out.carry(in.Held)
	}
	switch {
	case in.Stepped != nil:
	case in.Spec != nil:
		spec := *in.Spec
		step(roleplan.Event{Type: roleplan.EvStarted, Spec: &spec})
	case in.Resume != nil:
		step(roleplan.Event{Type: roleplan.EvResumed})
	}
	done := func() bool {
		return closed || (out != nil && out.pending == 0 && m.Finished())
	}
	for !done() {
		sel.Select(ctx)
		if done() || seq-in.Seq < in.Limits.EventsPerRun() || (out != nil && out.pending > 0) {
			continue
		}
		for { // the events already signalled: none may be lost
			var ev roleplan.Event
			if !events.ReceiveAsync(&ev) {
				break
			}
			step(ev)
		}
		if out != nil && out.pending > 0 {
			continue // what they started keeps this workflow run going
		}
		carried, err := gzipJSON(stepped)
		if err != nil {
			return Result{}, err
		}
		kept, err := gzipJSON(temporal.CarriedAnswers(recent, answers))
		if err != nil {
			return Result{}, err
		}
		next := Input{Dispatch: in.Dispatch, Stepped: carried, Seq: seq, Limits: in.Limits, Recent: kept}
		if out != nil {
			next.Held, next.Synced = out.timers(), out.synced
		}
		return Result{}, workflow.NewContinueAsNewError(ctx, WorkflowName, next)
	}
	for {
		var ev roleplan.Event
		if !events.ReceiveAsync(&ev) {
			break
		}
		step(ev)
	}
	res := Result{Answers: answers, State: m.Snapshot()}
	if out != nil {
		res.Delivery, res.DeliveryError = out.finish(stepped)
	}
	return res, nil
}

// dispatcher carries the machine's commands out inside the
// workflow. Everything it starts resolves through sel, which the
// workflow's loop selects on, so results are stepped in history order.
type dispatcher struct {
	d        *Dispatch
	ctx      workflow.Context
	sel      workflow.Selector
	step     func(roleplan.Event)
	snapshot func() roleplan.Snapshot
	workflow string
	// sessions are the role sessions out, to cancel on a stop.
	sessions map[sessionKey]workflow.CancelFunc
	pending  int // activities out; timers are not counted (timers carries them over)
	wakes    []roleplan.Command
	// stepped are the events stepped so far, of which the folder's
	// journal holds synced; recording: a record activity is out; waiting:
	// a batch waits for every to pass.
	stepped   func() []roleplan.Event
	synced    int
	recording bool
	waiting   bool
	every     time.Duration // Limits.RecordEvery
	// children: the phase runs as a child workflow (phaseChild), one for
	// each job of the machine's that runs it; false in runs recorded
	// before, whose phase a worker ran from one long activity.
	children bool
	phases   map[string]*phaseChild
}

// record has a worker of the run's folder journal the events stepped that
// its journal does not hold yet: now, or once Limits.RecordEvery has passed; one
// batch at a time, the events stepped meanwhile going with the next. A
// batch that failed goes again with the next event. What is left when
// the run ends goes with its delivery (finish).
func (p *dispatcher) record(now bool) {
	all := p.stepped()
	if p.recording || p.synced >= len(all) {
		return
	}
	if !now {
		if !p.waiting {
			p.waiting = true
			p.sel.AddFuture(workflow.NewTimer(p.ctx, p.every), func(workflow.Future) {
				p.waiting = false
				p.record(true)
			})
		}
		return
	}
	batch, err := gzipJSON(all[p.synced:])
	if err != nil {
		return
	}
	to := len(all)
	opts := workflow.ActivityOptions{TaskQueue: p.d.folder(), StartToCloseTimeout: p.d.Command,
		RetryPolicy: &sdk.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3}}
	p.recording = true
	p.pending++
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(p.ctx, opts), RecordActivity, Records{Run: p.d.Run, From: p.synced, Stepped: batch})
	p.sel.AddFuture(f, func(f workflow.Future) {
		p.pending--
		p.recording = false
		if f.Get(p.ctx, nil) == nil {
			p.synced = max(p.synced, to)
		}
		if p.synced < to {
			return // tried again with the next event
		}
		p.record(false)
	})
}

// carry carries cmds out: a wake is a timer, a stop cancels its session's
// activity, the work is an activity; checkpoints, notes and the end are
// for whoever follows the run (its answers, its state).
func (p *dispatcher) carry(cmds []roleplan.Command) {
	for _, c := range cmds {
		switch c.Type {
		case roleplan.CmdWake:
			p.wake(c)
		case roleplan.CmdStopAgent:
			if cancel, ok := p.sessions[sessionKey{c.Job, c.Attempt}]; ok {
				cancel() // the session stops its agent and still says how it ended
			} else if c.PID > 0 {
				// An agent of the process that ran the run before it was
				// resumed here: a worker of the run's folder, on its
				// machine, ends it if it is still there.
				p.executeOn(c, p.d.folder())
			}
		case roleplan.CmdCheckpoint, roleplan.CmdNote, roleplan.CmdFinished, roleplan.CmdStopForHuman:
		case roleplan.CmdRunPhase:
			if p.children {
				p.runPhase(c)
			} else {
				p.execute(c)
			}
		default:
			p.execute(c)
		}
	}
}

// wake sets a timer for c.At; it is carried into the next workflow run
// when this one continues as new before it fires.
func (p *dispatcher) wake(c roleplan.Command) {
	p.wakes = append(p.wakes, c)
	wait := max(c.At.Sub(workflow.Now(p.ctx)), 0)
	p.sel.AddFuture(workflow.NewTimer(p.ctx, wait), func(workflow.Future) {
		for i, w := range p.wakes {
			if w.At.Equal(c.At) {
				p.wakes = append(p.wakes[:i], p.wakes[i+1:]...)
				break
			}
		}
		p.step(roleplan.Event{Type: roleplan.EvWake})
	})
}

// timers are the wakes not yet fired.
func (p *dispatcher) timers() []roleplan.Command { return p.wakes }

// execute runs c as an activity on the run's queue.
func (p *dispatcher) execute(c roleplan.Command) { p.executeOn(c, p.d.TaskQueue) }

// executeOn runs c as an activity on queue.
func (p *dispatcher) executeOn(c roleplan.Command, queue string) {
	opts := workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: p.d.Command,
		HeartbeatTimeout:    p.d.Heartbeat,
		// A check that lost its worker is run again on another: it
		// changes nothing but its own result.
		RetryPolicy: &sdk.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	}
	ctx := p.ctx
	key := sessionKey{c.Job, c.Attempt}
	switch c.Type {
	case roleplan.CmdStartAgent:
		// The machine decides what follows a session that ended without
		// its report (once again, then a human): a retry is a new attempt
		// it journals, never Temporal's.
		opts.StartToCloseTimeout, opts.RetryPolicy.MaximumAttempts = p.d.Session, 1
		opts.WaitForCancellation = true // a stopped session still reports how it ended
		var cancel workflow.CancelFunc
		ctx, cancel = workflow.WithCancel(ctx)
		p.sessions[key] = cancel
	case roleplan.CmdRunPhase:
		// A worker lost while it ran the phase hands it to another, which
		// goes on with the phase where it is (its own workflow, or its
		// journal in the run's worktree), never again from its start.
		opts.StartToCloseTimeout = p.d.Session
	case roleplan.CmdDeliver, roleplan.CmdPush:
		opts.RetryPolicy.MaximumAttempts = 1 // what failed is said, and a human decides
	case roleplan.CmdWatch:
		// A watch only reads the pull request: it is tried until it finds
		// what the machine waits for.
		opts.StartToCloseTimeout, opts.RetryPolicy.MaximumAttempts = p.d.Session, 0
		opts.RetryPolicy.MaximumInterval = time.Minute
	}
	w := Work{Workflow: p.workflow, Run: p.d.Run, Command: c, State: p.snapshot(), Where: p.d.Where}
	p.pending++
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), CommandActivity, w)
	p.sel.AddFuture(f, func(f workflow.Future) {
		p.pending--
		if c.Type == roleplan.CmdStartAgent {
			delete(p.sessions, key)
		}
		var evs []roleplan.Event
		if err := f.Get(p.ctx, &evs); err != nil {
			evs = failed(c, err)
		}
		p.stepAll(evs)
	})
}

// finish has a worker of the run's folder deliver the ended run, whose
// machine stepped stepped.
func (p *dispatcher) finish(stepped []roleplan.Event) (json.RawMessage, string) {
	carried, err := gzipJSON(stepped)
	if err != nil {
		return nil, err.Error()
	}
	opts := workflow.ActivityOptions{TaskQueue: p.d.folder(), StartToCloseTimeout: p.d.Command, HeartbeatTimeout: p.d.Heartbeat,
		RetryPolicy: &sdk.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3}}
	var out json.RawMessage
	end := End{Workflow: p.workflow, Run: p.d.Run, Stepped: carried, Where: p.d.Where}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(p.ctx, opts), FinishActivity, end).Get(p.ctx, &out); err != nil {
		return nil, err.Error()
	}
	return out, ""
}

// failed is what a command whose activity failed (its worker
// died, it timed out, its code returned an error) means to the machine.
func failed(c roleplan.Command, err error) []roleplan.Event {
	why := temporal.Failure(err)
	ev := roleplan.Event{Job: c.Job, Attempt: c.Attempt, Reason: why}
	switch c.Type {
	case roleplan.CmdStartAgent:
		ev.Type, ev.ExitCode = roleplan.EvAgentExited, -1
	case roleplan.CmdLint:
		ev.Type, ev.Errors = roleplan.EvLinted, []string{"hive could not lint the plans: " + why}
	case roleplan.CmdRunPhase:
		ev.Type = roleplan.EvPhaseDone
	case roleplan.CmdRunTests, roleplan.CmdBuild:
		// Nobody can fix what did not run: a human decides.
		ev.Type, ev.Tests = roleplan.EvTestsRan, &roleplan.Tests{ExitCode: -1, Unrunnable: true, Output: why}
		if c.Type == roleplan.CmdBuild {
			ev.Type = roleplan.EvBuilt
		}
	case roleplan.CmdEvaluate:
		e := &roleplan.Evaluation{Role: c.Role}
		for _, a := range roleplan.Aspects {
			e.Verdicts = append(e.Verdicts, roleplan.Verdict{Aspect: a, Notes: []string{"not judged: " + why}})
		}
		ev.Type, ev.Evaluation = roleplan.EvEvaluated, e
	case roleplan.CmdDeliver:
		ev.Type = roleplan.EvDelivered
	case roleplan.CmdPush:
		ev.Type, ev.PR = roleplan.EvPushed, c.PR
	default:
		return nil // a watch is tried until its bound: the run waits for a human's resume
	}
	return []roleplan.Event{ev}
}

// gzipJSON is v as gzipped JSON: the events a run's workflow carries into
// its next workflow run, or hands a worker, take a tenth of the room.
func gzipJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if err := json.NewEncoder(z).Encode(v); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// gunzipJSON reads what gzipJSON made into v.
func gunzipJSON(data []byte, v any) error {
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer z.Close()
	return json.NewDecoder(z).Decode(v)
}
