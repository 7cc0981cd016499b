package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Workers are what one `hive worker` process runs: a worker of the run's
// task queue (the workflow, and every command), and one of a queue only it
// polls, where the messages to the agents it holds come (see SessionHost).
type Workers struct {
	shared, own worker.Worker
}

// NewWorkers readies the workers of a process that carries out exec's
// commands for the runs of queue.
func NewWorkers(c client.Client, queue string, exec Executor, opts worker.Options) *Workers {
	return newWorkers(c, queue, &Activities{Exec: exec}, opts)
}

// NewPhasesWorkers readies the workers of a process that carries out the
// commands of runs of many phases (Dispatch.Where), each with the
// executor that exec gives for it.
func NewPhasesWorkers(c client.Client, queue string, exec func(Where) (Executor, error), opts worker.Options) *Workers {
	return newWorkers(c, queue, &Activities{For: exec}, opts)
}

func newWorkers(c client.Client, queue string, acts *Activities, opts worker.Options) *Workers {
	// A stopped session hears of its stop (the activity's cancellation)
	// only with the answer to a heartbeat, which the SDK sends at most
	// every 80% of the heartbeat timeout (24 s for 30 s) unless told
	// otherwise: a plan whose agent is done would hold its run that long.
	if opts.MaxHeartbeatThrottleInterval == 0 {
		opts.MaxHeartbeatThrottleInterval = time.Second
	}
	host := hostQueue(queue)
	acts.Client, acts.Host = c, host
	shared := worker.New(c, queue, opts)
	shared.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	shared.RegisterActivityWithOptions(acts.Command, activity.RegisterOptions{Name: CommandActivity})
	own := worker.New(c, host, opts)
	own.RegisterActivityWithOptions(acts.Command, activity.RegisterOptions{Name: CommandActivity})
	return &Workers{shared: shared, own: own}
}

// Start starts polling both queues.
func (w *Workers) Start() error {
	if err := w.own.Start(); err != nil {
		return err
	}
	if err := w.shared.Start(); err != nil {
		w.own.Stop()
		return err
	}
	return nil
}

// Stop stops both.
func (w *Workers) Stop() {
	w.shared.Stop()
	w.own.Stop()
}

// hostQueue names a task queue of this process alone.
func hostQueue(queue string) string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s@%s-%d-%s", queue, host, os.Getpid(), hex.EncodeToString(b))
}

// Result waits for a workflow to end and reads its result into res (a
// *RunResult for a phase's run, a *json.RawMessage for a pipeline's). The wait
// is a long poll of the server: a poll that fails on its own (a server too
// busy to answer in time) is made again; the workflow's own failure, and
// ctx's end, are returned.
func Result(ctx context.Context, run client.WorkflowRun, res any) error {
	for {
		err := run.Get(ctx, res)
		var failed *temporal.WorkflowExecutionError
		if err == nil || ctx.Err() != nil || errors.As(err, &failed) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// DispatchFor is how a run's workflow hands out its work: heartbeats
// a tenth of the stall timeout (at least ten seconds), sessions of a day
// at most.
func DispatchFor(queue string, stall time.Duration) *Dispatch {
	if stall <= 0 {
		stall = 5 * time.Minute
	}
	return &Dispatch{TaskQueue: queue, Heartbeat: max(stall/10, 10*time.Second), Session: 24 * time.Hour, Command: 10 * time.Minute}
}

// State queries the engine's state in a phase run's workflow.
func State(ctx context.Context, c client.Client, run client.WorkflowRun) (phase.Snapshot, error) {
	var snap phase.Snapshot
	v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), StateQuery)
	if err == nil {
		err = v.Get(&snap)
	}
	if err != nil {
		return snap, fmt.Errorf("ask the run's workflow for its state: %w", err)
	}
	return snap, nil
}
