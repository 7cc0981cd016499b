package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/journal"
)

// fakeDriver drives runs as a test says: each attempt's error, in turn.
type fakeDriver struct {
	mu        sync.Mutex
	errs      []error
	takeovers []Takeover
	request   string
}

func (d *fakeDriver) Drive(_ context.Context, request json.RawMessage, t Takeover, started func(int64)) (json.RawMessage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.takeovers = append(d.takeovers, t)
	d.request = string(request)
	started(int64(7 + len(d.takeovers)))
	if n := len(d.takeovers); n <= len(d.errs) && d.errs[n-1] != nil {
		return nil, d.errs[n-1]
	}
	return json.RawMessage(`{"outcome":"complete"}`), nil
}

func runPipeline(t *testing.T, d *fakeDriver, drivers int) (json.RawMessage, error) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: PipelineWorkflowName})
	acts := &pipelineActivities{drive: d, beat: time.Millisecond}
	env.RegisterActivityWithOptions(acts.Drive, activity.RegisterOptions{Name: PipelineActivity})
	// A run started before its drivers were one activity each (its
	// history has no continueChange): Temporal retries its one activity.
	env.OnGetVersion(continueChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(PipelineWorkflowName, PipelineInput{Request: json.RawMessage(`{"objective":"add a health check"}`),
		Heartbeat: time.Minute, Timeout: time.Hour, Drivers: drivers})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	var out json.RawMessage
	err := env.GetWorkflowError()
	if err == nil {
		err = env.GetWorkflowResult(&out)
	}
	return out, err
}

// TestPipelineWorkflowHandsTheRunOn: a driver that fails (its worker
// died) hands the run to the next, which resumes it; the workflow ends
// with the run's result, which the driver was given the request of.
func TestPipelineWorkflowHandsTheRunOn(t *testing.T) {
	d := &fakeDriver{errs: []error{errors.New("worker lost"), errors.New("worker lost again")}}
	out, err := runPipeline(t, d, 5)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"outcome":"complete"}` {
		t.Errorf("result %s", out)
	}
	// Each driver knows its place and the run the one before drove
	// (its heartbeat said so), and when the workflow started.
	for i, tk := range d.takeovers {
		if tk.Attempt != int32(i+1) || tk.Since.IsZero() {
			t.Errorf("driver %d: %+v", i+1, tk)
		}
		if want := int64(0); i > 0 {
			want = int64(7 + i)
			if tk.Run != want {
				t.Errorf("driver %d was told run %d, want %d, the one before's", i+1, tk.Run, want)
			}
		} else if tk.Run != want {
			t.Errorf("the first driver was told run %d", tk.Run)
		}
	}
	if len(d.takeovers) != 3 {
		t.Errorf("%d drivers, want 3", len(d.takeovers))
	}
	if d.request != `{"objective":"add a health check"}` {
		t.Errorf("the driver got request %s", d.request)
	}
}

// TestPipelineWorkflowStops: a refused run is not handed on, and a run
// whose every driver failed ends with the last failure.
func TestPipelineWorkflowStops(t *testing.T) {
	d := &fakeDriver{errs: []error{Refused(errors.New("an unfinished run is in the journal"))}}
	if _, err := runPipeline(t, d, 5); err == nil || !strings.Contains(err.Error(), "an unfinished run") {
		t.Errorf("refused run: err %v", err)
	}
	if len(d.takeovers) != 1 {
		t.Errorf("a refused run went to %d drivers, want 1", len(d.takeovers))
	}
	d = &fakeDriver{errs: []error{errors.New("lost 1"), errors.New("lost 2")}}
	if _, err := runPipeline(t, d, 2); err == nil || !strings.Contains(err.Error(), "lost 2") {
		t.Errorf("every driver lost: err %v", err)
	}
	if len(d.takeovers) != 2 {
		t.Errorf("%d drivers tried, want the 2 allowed", len(d.takeovers))
	}
}

// TestPipelineWorkflowTakesAnswersBetweenDrivers: an answer that comes
// while no driver works (the workflow waits before the next) is in the
// inbox at once, where a terminal that follows the run looks for it
// before it stops at the question.
func TestPipelineWorkflowTakesAnswersBetweenDrivers(t *testing.T) {
	d := &fakeDriver{errs: []error{errors.New("worker lost")}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: PipelineWorkflowName})
	acts := &pipelineActivities{drive: d, beat: time.Millisecond}
	env.RegisterActivityWithOptions(acts.Drive, activity.RegisterOptions{Name: PipelineActivity})
	answer := Inbound{Run: 8, Checkpoint: 2, Type: "answer", Payload: json.RawMessage(`{"text":"raise"}`)}
	var inbox []Inbound
	// The first driver has failed; the next starts after a second.
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(AnswerSignal, answer) }, 300*time.Millisecond)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(JournalQuery, int64(1))
		if err != nil {
			t.Error(err)
			return
		}
		var r RunJournal
		if err := v.Get(&r); err != nil {
			t.Error(err)
		}
		inbox = r.Inbox
	}, 600*time.Millisecond)
	env.ExecuteWorkflow(PipelineWorkflowName, PipelineInput{Request: json.RawMessage(`{}`), Heartbeat: time.Minute, Timeout: time.Hour, Drivers: 3,
		Anywhere: "anywhere", Folder: "folder", Handover: time.Minute})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(d.takeovers) != 2 {
		t.Fatalf("%d drivers, want 2", len(d.takeovers))
	}
	if len(inbox) != 1 || inbox[0].Run != 8 || inbox[0].Checkpoint != 2 {
		t.Fatalf("the inbox between drivers: %+v, want the answer", inbox)
	}
}

// TestPipelineWorkflowContinuesAsNew: once its history is long, the
// workflow continues as new between two drivers, and hands the next
// workflow run the run's records, the answers, its drivers and when it
// started; there the next driver takes the run over, third in turn.
func TestPipelineWorkflowContinuesAsNew(t *testing.T) {
	d := &fakeDriver{errs: []error{errors.New("worker lost"), errors.New("worker lost again")}}
	var suite testsuite.WorkflowTestSuite
	start := func(in PipelineInput, history int, signals func(env *testsuite.TestWorkflowEnvironment)) (*testsuite.TestWorkflowEnvironment, error) {
		env := suite.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
		env.SetCurrentHistoryLength(history)
		env.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: PipelineWorkflowName})
		acts := &pipelineActivities{drive: d, beat: time.Millisecond}
		env.RegisterActivityWithOptions(acts.Drive, activity.RegisterOptions{Name: PipelineActivity})
		if signals != nil {
			signals(env)
		}
		env.ExecuteWorkflow(PipelineWorkflowName, in)
		return env, env.GetWorkflowError()
	}
	run := journal.Run{ID: 8, Events: 1}
	in := PipelineInput{Request: json.RawMessage(`{}`), Heartbeat: time.Minute, Timeout: time.Hour, Drivers: 5}
	// The first driver journals a record and is lost; an answer comes.
	_, err := start(in, pipelineHistory, func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(JournalSignal, JournalEntry{Driver: 1, Run: run, Records: []journal.Record{{Run: 8, Seq: 1, Type: "started", Payload: json.RawMessage(`{}`)}}})
			env.SignalWorkflow(DriverSignal, Driver{Attempt: 1, Host: "here", Run: 8})
			env.SignalWorkflow(AnswerSignal, Inbound{Run: 8, Checkpoint: 1, Type: "answer"})
		}, 0)
	})
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want a continue-as-new after the first driver, got %v", err)
	}
	var next PipelineInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	var c carried
	if err := gunzipJSON(next.Carried, &c); err != nil {
		t.Fatal(err)
	}
	if c.N != 1 || c.Failed != 1 || len(c.Kept.Records) != 1 || len(c.Kept.Inbox) != 1 || len(c.Drivers) != 1 || c.Since.IsZero() {
		t.Fatalf("carried %+v; want one driver, its record and the answer, and the start", c)
	}
	// The next workflow run goes on: its first driver is the second.
	env, err := start(next, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.takeovers) != 3 || d.takeovers[1].Attempt != 2 || d.takeovers[1].Run != 8 || !d.takeovers[1].Since.Equal(c.Since) {
		t.Fatalf("drivers %+v; want the second told run 8 and the first workflow run's start", d.takeovers)
	}
	v, err := env.QueryWorkflow(JournalQuery, int64(1))
	if err != nil {
		t.Fatal(err)
	}
	var kept RunJournal
	if err := v.Get(&kept); err != nil || len(kept.Records) != 1 || len(kept.Inbox) != 1 {
		t.Fatalf("the next workflow run keeps %+v (%v)", kept, err)
	}
}
