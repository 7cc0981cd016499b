package runworker

import (
	"context"
	"fmt"
	"io"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Notes prints what a worker has to say on W; the run's events are the
// workflow's, shown by execute-phase.
type Notes struct{ W io.Writer }

func (Notes) Resumed(journal.Run, phase.Snapshot)   {}
func (Notes) Event(phase.Event, phase.Snapshot)     {}
func (Notes) Command(phase.Command, phase.Snapshot) {}

func (n Notes) Note(plan, text string) {
	fmt.Fprintf(n.W, "hive worker: %s %s\n", plan, text)
}

// Announced says on a worker's output when an agent session of a plan
// starts and ends here: which worker runs what is the worker's to tell.
type Announced struct {
	temporal.Executor
	W io.Writer
}

func (a Announced) Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	if c.Type != phase.CmdStartAgent {
		return a.Executor.Execute(ctx, c, since, snap, emit)
	}
	fmt.Fprintf(a.W, "hive worker: %s attempt %d runs here\n", c.Plan, c.Attempt)
	evs, err := a.Executor.Execute(ctx, c, since, snap, emit)
	how := "ended"
	for _, ev := range evs {
		if ev.Type == phase.EvAgentExited && ev.Reason != "" {
			how = "ended: " + ev.Reason
		}
	}
	if err != nil {
		how = "ended: " + err.Error()
	}
	fmt.Fprintf(a.W, "hive worker: %s attempt %d %s\n", c.Plan, c.Attempt, how)
	return evs, err
}

// ServePhase starts a worker of a phase's runs (execute-phase's) on queue:
// their plans' agent sessions, with opts, told on out. stop stops it.
func ServePhase(c client.Client, queue string, opts runner.Options, out io.Writer) (stop func(), err error) {
	opts.Observer = Notes{W: out}
	runs, err := runner.NewWorker(opts)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%v", err)
	}
	w := temporal.NewWorkers(c, queue, Announced{Executor: runs, W: out}, worker.Options{})
	if err := w.Start(); err != nil {
		runs.Close()
		return nil, fmt.Errorf("worker: %w", err)
	}
	return func() {
		w.Stop()
		runs.Close()
	}, nil
}
