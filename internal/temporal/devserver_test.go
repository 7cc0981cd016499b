package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/engine/enginescript"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// devServer starts a Temporal dev server on loopback (in memory) and a
// worker of the run workflow on a task queue of the test's; more registers
// what else the worker runs.
func devServer(t *testing.T, more ...func(client.Client, worker.Worker)) (client.Client, string) {
	t.Helper()
	_, c := temporaltest.Start(t)
	queue := "hive-test-" + t.Name()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	for _, m := range more {
		m(c, w)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return c, queue
}

// dispatchRun runs a dispatching workflow id on the server's queue from
// the run's start (the heartbeat timeout given) to its end, and returns its
// result and final state.
func dispatchRun(ctx context.Context, t *testing.T, c client.Client, queue, id string, heartbeat time.Duration, start phase.Event) (RunResult, phase.Snapshot) {
	t.Helper()
	in := RunInput{Dispatch: &Dispatch{TaskQueue: queue, Heartbeat: heartbeat, Session: time.Hour, Command: time.Minute}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, RunWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, start); err != nil {
		t.Fatal(err)
	}
	var res RunResult
	if err := Result(ctx, run, &res); err != nil {
		t.Fatal(err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		t.Fatal(err)
	}
	return res, final.Snapshot()
}

// TestRunWorkflowOnADevServer runs engine scripts' runs through a real
// Temporal server and worker: events as signals, the state as a query, the
// close; the answers are what the engine gives locally. The scripts: one
// with checkpoints, and one whose run waits for a usage limit's reset and
// wakes. With HIVE_RECORD_HISTORY=1 it keeps the latter's history in
// testdata/histories for the replay test (record one whenever the engine
// version changes).
func TestRunWorkflowOnADevServer(t *testing.T) {
	c, queue := devServer(t)
	for _, script := range []string{"checkpoints_standalone", "limits"} {
		t.Run(script, func(t *testing.T) { runScriptOnADevServer(t, c, queue, script, script == "limits") })
	}
}

func runScriptOnADevServer(t *testing.T, c client.Client, queue, script string, record bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := scriptEvents(t, filepath.Join("..", "engine", "testdata", "scripts", script))
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-run-test-" + script, TaskQueue: queue}, RunWorkflowName, RunInput{})
	if err != nil {
		t.Fatal(err)
	}
	local := engine.New()
	var want []string
	for _, ev := range events {
		if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, ev); err != nil {
			t.Fatal(err)
		}
		want = append(want, enginescript.Render(local.Step(ev)))
	}
	// The state as a query, once every event is in.
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), StateQuery)
		if err != nil {
			t.Fatal(err)
		}
		var snap phase.Snapshot
		if err := v.Get(&snap); err != nil {
			t.Fatal(err)
		}
		if got := enginescript.RenderState(snap); got == enginescript.RenderState(local.Snapshot()) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the workflow's state:\n%s\nthe local engine's:\n%s", got, enginescript.RenderState(local.Snapshot()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), CloseSignal, nil); err != nil {
		t.Fatal(err)
	}
	var res RunResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Answers) != len(events) {
		t.Fatalf("%d answers to %d events", len(res.Answers), len(events))
	}
	for i, a := range res.Answers {
		var err error
		if a.Err != "" {
			err = errors.New(a.Err)
		}
		if got := enginescript.Render(a.Commands, err); got != want[i] {
			t.Fatalf("event %d (%s): the workflow answered\n%s\nthe local engine\n%s", i+1, events[i].Type, got, want[i])
		}
	}
	if record && os.Getenv("HIVE_RECORD_HISTORY") != "" {
		temporaltest.RecordHistory(t, c, run, filepath.Join("testdata", "histories", historyFile(phase.Version)))
	}
}

// historyFile names the recorded history of an engine version.
func historyFile(version int) string { return fmt.Sprintf("engine-%d.json", version) }

// scriptEvents are the events of a script's first run.
func scriptEvents(t *testing.T, path string) []phase.Event {
	var events []phase.Event
	runs := 0
	for _, st := range readScript(t, path) {
		if st.event != nil && st.event.Type == phase.EvRunStarted {
			runs++
		}
		if st.event != nil && runs == 1 {
			events = append(events, *st.event)
		}
	}
	return events
}
