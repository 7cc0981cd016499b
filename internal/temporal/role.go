package temporal

// Role sessions of hive run as activities: a run with a git remote does
// not start its roles' agents (architect, tester, reviewer, …) on the
// machine that drives it, but as a workflow of one activity each
// (RoleWorkflow), on the queue of the workers that run its plans, so that
// its agents are spread over the machines as its implementers' are. The
// session's outputs come to the driver as they happen: the activity
// signals them to its workflow, which keeps them and answers them
// (RoleOutputsQuery); the driver follows them there (RoleCall) and hands
// them to the pipeline as a local agent's. What they mean stays the
// CLI's: here they are opaque.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// The names a role session is known by in Temporal.
const (
	// RoleWorkflowName is the workflow type of one role session.
	RoleWorkflowName = "hive-role-session"
	// RoleActivity runs the session's agent on a worker.
	RoleActivity = "hive-role-agent"
	// RoleOutputSignal carries the session's outputs from the activity to
	// its workflow (a RoleOutputs).
	RoleOutputSignal = "hive-role-output"
	// RoleOutputsQuery answers the session's outputs from an index on.
	RoleOutputsQuery = "hive-role-outputs"
)

// RoleInput starts a role session's workflow.
type RoleInput struct {
	// Session is what the worker is to run, opaque here: the CLI's.
	Session json.RawMessage `json:"session"`
	// Queue is the task queue of the workers that run sessions.
	Queue string `json:"queue"`
	// Heartbeat is how long the session's worker may go silent before it
	// is taken for dead (the session then ends, as an agent that crashed);
	// Timeout bounds the session.
	Heartbeat time.Duration `json:"heartbeat"`
	Timeout   time.Duration `json:"timeout"`
}

// RoleOutputs are a session's outputs from index From on.
type RoleOutputs struct {
	From    int               `json:"from"`
	Outputs []json.RawMessage `json:"outputs,omitempty"`
}

// RoleResult is how a session ended: all its outputs, and Err when its
// activity failed (its worker was lost, it was stopped, its git work
// failed) rather than its agent ending.
type RoleResult struct {
	Outputs []json.RawMessage `json:"outputs,omitempty"`
	Err     string            `json:"err,omitempty"`
}

// RoleWorkflow runs one role session: its activity on in.Queue, once (a
// session that fails is the pipeline's to retry, as a crashed agent), with
// its outputs kept as they come. Cancelling the workflow stops the agent,
// which still says how it ended.
func RoleWorkflow(ctx workflow.Context, in RoleInput) (RoleResult, error) {
	var outs []json.RawMessage
	if err := workflow.SetQueryHandler(ctx, RoleOutputsQuery, func(from int) (RoleOutputs, error) {
		from = min(max(from, 0), len(outs))
		return RoleOutputs{From: from, Outputs: outs[from:]}, nil
	}); err != nil {
		return RoleResult{}, err
	}
	take := func(b RoleOutputs) {
		if b.From <= len(outs) && b.From+len(b.Outputs) > len(outs) {
			outs = append(outs, b.Outputs[len(outs)-b.From:]...)
		}
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           in.Queue,
		StartToCloseTimeout: in.Timeout,
		HeartbeatTimeout:    in.Heartbeat,
		WaitForCancellation: true,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), RoleActivity, in.Session)
	signals := workflow.GetSignalChannel(ctx, RoleOutputSignal)
	var res RoleResult
	var err error
	done := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(f, func(f workflow.Future) {
		done = true
		err = f.Get(ctx, &res)
	})
	sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) {
		var b RoleOutputs
		c.Receive(ctx, &b)
		take(b)
	})
	for !done {
		sel.Select(ctx)
	}
	for {
		var b RoleOutputs
		if !signals.ReceiveAsync(&b) {
			break
		}
		take(b)
	}
	if err != nil {
		// What came before the end, and how it ended: the driver's to say.
		why := err.Error()
		var timeout *temporal.TimeoutError
		switch {
		case errors.As(err, &timeout):
			why = fmt.Sprintf("its worker was lost (%s timeout)", timeout.TimeoutType())
		case temporal.IsCanceledError(err):
			why = "stopped"
		}
		return RoleResult{Outputs: outs, Err: why}, nil
	}
	if len(res.Outputs) < len(outs) {
		res.Outputs = outs // an activity of an older hive, that returned none
	}
	return res, nil
}

// RoleRunner runs a role session on a worker: the agent session, and the
// git work around it. It hands each output to emit as it comes, in order,
// and must end when ctx does.
type RoleRunner interface {
	Run(ctx context.Context, session json.RawMessage, emit func(json.RawMessage)) error
}

// roleActivities run role sessions on a worker.
type roleActivities struct {
	run    RoleRunner
	client client.Client
	beat   time.Duration // how often outputs go to the workflow, and heartbeats
}

// Agent runs one session, heartbeating, and signals its outputs to its
// workflow as they come; it returns them all.
func (a *roleActivities) Agent(ctx context.Context, session json.RawMessage) (RoleResult, error) {
	info := activity.GetInfo(ctx)
	var mu sync.Mutex
	var outs []json.RawMessage
	sent := 0
	flush := func() {
		mu.Lock()
		b := RoleOutputs{From: sent, Outputs: slices.Clone(outs[sent:])}
		mu.Unlock()
		if len(b.Outputs) == 0 {
			return
		}
		// Not the activity's context: a stopped session's last outputs
		// (how it ended) go too.
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.client.SignalWorkflow(sctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, RoleOutputSignal, b); err != nil {
			activity.GetLogger(ctx).Warn("signal a role session's outputs", "error", err)
			return // they go with the next, or with the result
		}
		mu.Lock()
		sent = max(sent, b.From+len(b.Outputs))
		mu.Unlock()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(a.beat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
				flush()
			}
		}
	}()
	err := a.run.Run(ctx, session, func(out json.RawMessage) {
		mu.Lock()
		outs = append(outs, out)
		mu.Unlock()
	})
	close(done)
	wg.Wait()
	if err != nil {
		flush() // the result, an error, carries none
		return RoleResult{}, err
	}
	return RoleResult{Outputs: outs}, nil
}

// ServeRoles makes w run role sessions with run too: their workflows and
// their activities, on w's queue. Call it before Start.
func (w *Workers) ServeRoles(c client.Client, run RoleRunner) { RegisterRoles(w.shared, c, run) }

// RegisterRoles registers the role sessions' workflow, and their activity
// run with run, with r.
func RegisterRoles(r worker.Registry, c client.Client, run RoleRunner) {
	// A second: a report or an exit waits that long at most, and a long,
	// busy session's history grows by a signal a second at most.
	acts := &roleActivities{run: run, client: c, beat: time.Second}
	r.RegisterWorkflowWithOptions(RoleWorkflow, workflow.RegisterOptions{Name: RoleWorkflowName})
	r.RegisterActivityWithOptions(acts.Agent, activity.RegisterOptions{Name: RoleActivity})
}

// RoleCall is a role session a driver started, and follows.
type RoleCall struct {
	c   client.Client
	run client.WorkflowRun
}

// StartRole starts a role session's workflow id on queue (the workflow's
// task queue, which is in's too).
func StartRole(ctx context.Context, c client.Client, id string, in RoleInput) (*RoleCall, error) {
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: in.Queue}, RoleWorkflowName, in)
	if err != nil {
		return nil, fmt.Errorf("start the role session's workflow %s: %w", id, err)
	}
	return &RoleCall{c: c, run: run}, nil
}

// ID is the session's workflow.
func (r *RoleCall) ID() string { return r.run.GetID() }

// Follow hands each output of the session to out, in order and once, as
// it comes (asking the workflow every poll) until the session ends, and
// returns how it ended: its RoleResult.Err, or why it could not be
// followed.
func (r *RoleCall) Follow(ctx context.Context, poll time.Duration, out func(json.RawMessage)) string {
	seen := 0
	give := func(outs []json.RawMessage, from int) {
		for i, o := range outs {
			if from+i == seen {
				out(o)
				seen++
			}
		}
	}
	result := make(chan error, 1)
	var res RoleResult
	go func() { result <- Result(ctx, r.run, &res) }()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case err := <-result:
			if err != nil {
				return "its session's workflow " + r.run.GetID() + ": " + err.Error()
			}
			give(res.Outputs, 0)
			return res.Err
		case <-t.C:
			v, err := r.c.QueryWorkflow(ctx, r.run.GetID(), r.run.GetRunID(), RoleOutputsQuery, seen)
			if err != nil {
				continue // the next poll, or the result, brings them
			}
			var b RoleOutputs
			if v.Get(&b) == nil {
				give(b.Outputs, b.From)
			}
		}
	}
}

// Stop asks the session to end: its agent is stopped, and says how it
// ended.
func (r *RoleCall) Stop(ctx context.Context) error {
	return r.c.CancelWorkflow(ctx, r.run.GetID(), r.run.GetRunID())
}
