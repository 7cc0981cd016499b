package objective

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// TestObjectiveWorkflowOnADevServer runs the quick workflow through
// Workflow on a real Temporal server and worker, the roles'
// events signalled by their activities as they come: the tests cannot run
// at first, the human (a signal) says retry, and the run completes and is
// delivered. With HIVE_RECORD_HISTORY=1 it keeps the history in
// testdata/histories (objective-N.json) for the replay test: record one
// whenever the workflow's code changes how it runs.
func TestObjectiveWorkflowOnADevServer(t *testing.T) {
	workers := &roleWorkers{fault: func(w Work, n int) ([]roleplan.Event, error, bool) {
		if w.Command.Type == roleplan.CmdRunTests && n == 1 {
			return []roleplan.Event{{Type: roleplan.EvTestsRan, Job: w.Command.Job, Attempt: w.Command.Attempt,
				Tests: &roleplan.Tests{Command: "pnpm test", ExitCode: 127, Unrunnable: true, Output: "sh: 1: pnpm: not found"}}}, nil, true
		}
		return nil, nil, false
	}}
	c, queue := devServer(t, func(c client.Client, w worker.Worker) { Register(w, c, workers) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := *objectiveDispatch
	d.TaskQueue = queue
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-run-test-objective", TaskQueue: queue}, WorkflowName,
		Input{Spec: quickSpec(t), Dispatch: &d, Limits: temporal.Limits{RecordEvery: time.Hour}}) // only the question's batch goes before the end
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	open := asked(ctx, t, c, run, deadline)
	// The question goes to the folder's journal at once, not with the
	// next batch: hive status shows it.
	for workers.journaled() < 9 {
		if time.Now().After(deadline) {
			t.Fatalf("the journal holds %d events at the question, want 9", workers.journaled())
		}
		time.Sleep(20 * time.Millisecond)
	}
	answer := roleplan.Event{Type: roleplan.EvAnswer, Job: open.Job, Checkpoint: open.ID, Text: "retry"}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, answer); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := temporal.Result(ctx, run, &res); err != nil {
		t.Fatal(err)
	}
	if res.State.Outcome != roleplan.OutcomeComplete || string(res.Delivery) != `{"events":11}` {
		t.Fatalf("outcome %s (%s), delivery %s %s", res.State.Outcome, res.State.Reason, res.Delivery, res.DeliveryError)
	}
	if want := "run-tests tester 1\nrun-tests tester 1\nfinish 7"; !strings.HasSuffix(workers.log(), want) {
		t.Errorf("carried out:\n%s\nwant the tests twice, then the delivery", workers.log())
	}
	if os.Getenv("HIVE_RECORD_HISTORY") != "" {
		temporaltest.RecordHistory(t, c, run, filepath.Join("testdata", "histories", "objective-1.json"))
	}
}

// TestObjectivePhaseOnADevServer runs architect and implementers through
// Workflow on a real Temporal server: the phase runs as a child
// workflow, stops at its share of the budget, the human (a signal) raises
// it, and the same child goes on to the end. With HIVE_RECORD_HISTORY=1
// it keeps both histories, the run's (objective-2.json) and its phase's
// (objective-2-phase.json), for the replay test.
func TestObjectivePhaseOnADevServer(t *testing.T) {
	var queue string
	workers := &roleWorkers{phases: budgetPhases(t, func(step *PhaseStep) {
		step.Input.Dispatch.TaskQueue, step.ID = queue, "hive-run-test-objective-phase"
	})}
	c, q := devServer(t, func(c client.Client, w worker.Worker) {
		Register(w, c, workers)
		w.RegisterActivityWithOptions((&temporal.Activities{Exec: &spendingPlans{}, Client: c}).Command, activity.RegisterOptions{Name: temporal.CommandActivity})
	})
	queue = q
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := *objectiveDispatch
	d.TaskQueue = queue
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-run-test-objective", TaskQueue: queue}, WorkflowName,
		Input{Spec: budgetSpec(), Dispatch: &d})
	if err != nil {
		t.Fatal(err)
	}
	open := asked(ctx, t, c, run, time.Now().Add(30*time.Second))
	answer := roleplan.Event{Type: roleplan.EvAnswer, Job: open.Job, Checkpoint: open.ID, Text: "raise 100000"}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, answer); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := temporal.Result(ctx, run, &res); err != nil {
		t.Fatal(err)
	}
	if res.State.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %s (%s)\n%s", res.State.Outcome, res.State.Reason, workers.log())
	}
	want := "phase start implementers 1\nphase stopped implementers 1\nphase ended implementers 2\nfinish 7"
	if got := workers.log(); !strings.HasSuffix(got, want) {
		t.Errorf("carried out:\n%s\nwant it to end with:\n%s", got, want)
	}
	if os.Getenv("HIVE_RECORD_HISTORY") != "" {
		temporaltest.RecordHistory(t, c, run, filepath.Join("testdata", "histories", "objective-2.json"))
		temporaltest.RecordHistory(t, c, c.GetWorkflow(ctx, "hive-run-test-objective-phase", ""), filepath.Join("testdata", "histories", "objective-2-phase.json"))
	}
}

// devServer starts a Temporal dev server on loopback (in memory) and a
// worker of the phases' workflow on a task queue of the test's; more
// registers what else the worker runs.
func devServer(t *testing.T, more ...func(client.Client, worker.Worker)) (client.Client, string) {
	t.Helper()
	_, c := temporaltest.Start(t)
	queue := "hive-test-" + t.Name()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(temporal.RunWorkflow, workflow.RegisterOptions{Name: temporal.RunWorkflowName})
	for _, m := range more {
		m(c, w)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return c, queue
}

// asked waits until the run's workflow asks a question, and returns it.
func asked(ctx context.Context, t *testing.T, c client.Client, run client.WorkflowRun, deadline time.Time) roleplan.Checkpoint {
	t.Helper()
	for ; ; time.Sleep(50 * time.Millisecond) {
		v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.StateQuery)
		if err != nil {
			t.Fatal(err)
		}
		var snap roleplan.Snapshot
		if err := v.Get(&snap); err != nil {
			t.Fatal(err)
		}
		if snap.Open != nil {
			return *snap.Open
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing asked: %+v", snap)
		}
	}
}
