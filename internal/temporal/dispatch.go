package temporal

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Dispatch is how a workflow carries the engine's commands out itself.
type Dispatch struct {
	// TaskQueue is the queue the run's workers poll.
	TaskQueue string `json:"task_queue"`
	// Heartbeat is how long a working command's worker may go silent
	// before it is taken for dead: its agent session then counts as
	// exited (the engine retries or asks a human, as for a crash), its
	// other commands as failed.
	Heartbeat time.Duration `json:"heartbeat"`
	// Session bounds one agent session from start to end; Command any
	// other command.
	Session time.Duration `json:"session"`
	Command time.Duration `json:"command"`
	// Where goes with every command, for workers that serve the phases of
	// more than one tree (hive run's implementers); nil for a phase's own
	// workers, which know theirs.
	Where *Where `json:"where,omitempty"`
}

// Where names the phase a command is for and the tree its plans run in.
type Where struct {
	Dir   string `json:"dir"`   // the tree, an absolute path on the workers' shared file system; "" with Remote
	Phase string `json:"phase"` // the phase's folder, relative to the tree
	// Remote, when set, is the git remote through which the workers share
	// the phase's work instead of Dir, each in a clone of its own: the
	// phase is on the remote's integration branch of Namespace, which also
	// names the run's branches there (hive/NAMESPACE/...).
	Remote    string `json:"remote,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Env is more environment for the phase's agents.
	Env []string `json:"env,omitempty"`
	// Agent names the agent program of the run (claude, codex, sim…);
	// "" for the worker's own.
	Agent string `json:"agent,omitempty"`
}

// workerCommands are what a worker carries out. A wake is the workflow's
// own timer; a stop cancels the session's activity; the rest (states,
// notes, checkpoints shown) are for whoever watches the run, through its
// answers and its state.
var workerCommands = map[phase.CommandType]bool{
	phase.CmdStartAgent: true, phase.CmdSpotCheck: true, phase.CmdCheckCommits: true,
	phase.CmdMerge: true, phase.CmdGate: true, phase.CmdVerify: true,
	phase.CmdSend: true, phase.CmdPermission: true,
}

type sessionKey struct {
	plan    string
	attempt int
}

// dispatcher carries commands out inside the workflow. Everything it
// starts resolves through sel, which the workflow's loop selects on, so
// results are stepped in the order the history records them.
type dispatcher struct {
	d        *Dispatch
	ctx      workflow.Context
	sel      workflow.Selector
	step     func(phase.Event)
	snapshot func() phase.Snapshot
	sessions map[sessionKey]workflow.CancelFunc
	pending  int // activities and timers not yet resolved

	// hosts are the task queues of the workers that hold the sessions
	// (SessionSignal); held are the messages to a session whose host is
	// not known yet.
	hosts  map[sessionKey]string
	held   map[sessionKey][]phase.Command
	routed bool // false: a run started before SessionSignal, whose messages go to the run's queue
	// stopsHost: a stop also goes to the worker that holds the session
	// (false in runs started before it did).
	stopsHost bool
	// messages are the scopes of the messages sent to each live session's
	// own worker: once the session has ended, what its worker has not
	// taken is cancelled, since a worker that died never takes it and the
	// run would wait for it forever (cancelMessages false: a run started
	// before, whose messages wait).
	messages       map[sessionKey]messageScope
	cancelMessages bool

	// Merges, post-merge gates and verifications go one at a time, in the
	// order the engine asked for them: each works on the integration
	// branch the one before left (on a remote, a second merge at once
	// would find its push refused).
	serial []phase.Command
	busy   bool

	// draining: the history is long; no work starts, what is out ends,
	// and held is carried into the next workflow run (heldOver).
	draining bool
	deferred []phase.Command
}

// serialCommands are the commands that take turns on the integration branch.
var serialCommands = map[phase.CommandType]bool{phase.CmdMerge: true, phase.CmdGate: true, phase.CmdVerify: true}

func (p *dispatcher) carry(cmds []phase.Command) {
	for _, c := range cmds {
		if p.draining && startsWork(c) {
			p.deferred = append(p.deferred, c)
			continue
		}
		switch {
		case c.Type == phase.CmdWake:
			p.pending++
			wait := max(c.At.Sub(workflow.Now(p.ctx)), 0)
			p.sel.AddFuture(workflow.NewTimer(p.ctx, wait), func(workflow.Future) {
				p.pending--
				p.step(phase.Event{Type: phase.EvWake})
			})
		case c.Type == phase.CmdStopAgent:
			key := sessionKey{c.Plan, c.Attempt}
			if cancel, ok := p.sessions[key]; ok {
				cancel()
				// The cancellation reaches the session with its next
				// heartbeat, which the SDK sends at most every 80% of the
				// heartbeat timeout: the agent would linger for seconds.
				// Its worker hears of the stop at once, as of a message
				// (held, like one, until the session says where it is).
				if p.stopsHost && p.routed {
					p.message(c)
				}
			}
		case c.Type == phase.CmdSend || c.Type == phase.CmdPermission:
			p.message(c)
		case serialCommands[c.Type]:
			p.serial = append(p.serial, c)
			p.next()
		case workerCommands[c.Type]:
			p.execute(c)
		}
	}
}

// SessionHost says which task queue reaches the worker that holds a
// session: its own, or "" for the run's (a worker polling no queue of its
// own, alone or not caring).
type SessionHost struct {
	Plan    string `json:"plan"`
	Attempt int    `json:"attempt"`
	Queue   string `json:"queue,omitempty"`
}

// message sends c to the worker that holds its session, once known; a
// message to a session that is over has no one to read it.
func (p *dispatcher) message(c phase.Command) {
	if !p.routed {
		p.execute(c)
		return
	}
	key := sessionKey{c.Plan, c.Attempt}
	if _, live := p.sessions[key]; !live {
		return
	}
	if q, ok := p.hosts[key]; ok {
		p.sendTo(c, q)
		return
	}
	p.held[key] = append(p.held[key], c)
}

// messageScope is where the messages to one session's worker run.
type messageScope struct {
	ctx    workflow.Context
	cancel workflow.CancelFunc
}

// sendTo sends a message to the worker of queue; a stop goes only to a
// worker that polls a queue of its own (another worker holds no session
// of it to stop).
func (p *dispatcher) sendTo(c phase.Command, queue string) {
	if c.Type == phase.CmdStopAgent && queue == "" {
		return
	}
	p.executeOn(c, queue)
}

// hosted learns where a session lives and sends what waited for it.
func (p *dispatcher) hosted(h SessionHost) {
	key := sessionKey{h.Plan, h.Attempt}
	if _, live := p.sessions[key]; !live {
		return
	}
	p.hosts[key] = h.Queue
	held := p.held[key]
	delete(p.held, key)
	for _, c := range held {
		p.sendTo(c, h.Queue)
	}
}

// startsWork says whether c starts something the workflow run must wait
// for; messages to the sessions out and their stops still go while it
// drains (an answer a session waits for is what lets it end).
func startsWork(c phase.Command) bool {
	return c.Type == phase.CmdWake || serialCommands[c.Type] || workerCommands[c.Type] && c.Type != phase.CmdSend && c.Type != phase.CmdPermission
}

// heldOver is the work a draining dispatcher did not start, in the order
// it was asked for: the serial commands that waited their turn first.
func (p *dispatcher) heldOver() []phase.Command {
	return append(slices.Clone(p.serial), p.deferred...)
}

// next starts the first serial command waiting, unless one is out or the
// run drains.
func (p *dispatcher) next() {
	if p.busy || p.draining || len(p.serial) == 0 {
		return
	}
	c := p.serial[0]
	p.serial = p.serial[1:]
	p.busy = true
	p.execute(c)
}

func (p *dispatcher) execute(c phase.Command) { p.executeOn(c, "") }

// executeOn runs c as an activity on queue ("": the run's).
func (p *dispatcher) executeOn(c phase.Command, queue string) {
	if queue == "" {
		queue = p.d.TaskQueue
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: p.d.Command,
		HeartbeatTimeout:    p.d.Heartbeat,
		// The engine decides what follows a failure (a retry is a new
		// attempt it journals); Temporal retries only a command that
		// never reached a worker's code.
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	ctx := p.ctx
	key := sessionKey{c.Plan, c.Attempt}
	if scope, ok := p.messages[key]; ok && queue != p.d.TaskQueue {
		ctx = scope.ctx // a message to the session's own worker ends with the session
	}
	if c.Type == phase.CmdStartAgent {
		opts.StartToCloseTimeout = p.d.Session
		opts.WaitForCancellation = true // a stopped session still reports how it ended
		var cancel workflow.CancelFunc
		ctx, cancel = workflow.WithCancel(ctx)
		p.sessions[key] = cancel
		if p.cancelMessages {
			mctx, mcancel := workflow.WithCancel(p.ctx)
			p.messages[key] = messageScope{mctx, mcancel}
		}
	}
	snap := p.snapshot()
	w := Work{Command: c, Since: since(snap, c.Plan), Where: p.d.Where}
	if c.Type == phase.CmdMerge {
		w.State = &snap
	}
	p.pending++
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), CommandActivity, w)
	p.sel.AddFuture(f, func(f workflow.Future) {
		p.pending--
		if c.Type == phase.CmdStartAgent {
			delete(p.sessions, key)
			delete(p.hosts, key)
			delete(p.held, key)
			if scope, ok := p.messages[key]; ok {
				scope.cancel()
				delete(p.messages, key)
			}
		}
		if serialCommands[c.Type] {
			p.busy = false
			defer p.next() // after its result is stepped: the engine may ask for more
		}
		var evs []phase.Event
		if err := f.Get(p.ctx, &evs); err != nil {
			evs = failed(c, err)
		}
		for _, ev := range evs {
			p.step(ev)
		}
	})
}

// since is plan's phase.PlanSpec.Since in snap.
func since(snap phase.Snapshot, plan string) string {
	for _, p := range snap.Plans {
		if p.Spec.ID == plan {
			return p.Spec.Since
		}
	}
	return ""
}

// Failure says why an activity failed, for the machine that decides what
// follows: its worker was lost (a timeout), it was stopped, or its error.
func Failure(err error) string {
	var timeout *temporal.TimeoutError
	switch {
	case errors.As(err, &timeout):
		return fmt.Sprintf("its worker was lost (%s timeout)", timeout.TimeoutType())
	case temporal.IsCanceledError(err):
		return "stopped"
	}
	return err.Error()
}

// failed is what a command whose activity failed (its worker died, it
// timed out, its code returned an error) means to the engine.
func failed(c phase.Command, err error) []phase.Event {
	why := Failure(err)
	ev := phase.Event{Plan: c.Plan, Attempt: c.Attempt, Reason: why}
	switch c.Type {
	case phase.CmdStartAgent:
		ev.Type, ev.ExitCode = phase.EvAgentExited, -1
	case phase.CmdSpotCheck:
		ev.Type = phase.EvSpotChecked
	case phase.CmdCheckCommits:
		ev.Type = phase.EvCommitsChecked
	case phase.CmdMerge:
		ev.Type = phase.EvMerged
	case phase.CmdGate:
		ev.Type, ev.Text = phase.EvGateChecked, why
	case phase.CmdVerify:
		ev.Type, ev.Text = phase.EvVerified, "human_needed" // a human decides what an unverified phase means
	default:
		return nil // a message to a session that is gone: nothing follows
	}
	return []phase.Event{ev}
}
