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
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
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
	env.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: PipelineWorkflowName})
	acts := &pipelineActivities{drive: d, beat: time.Millisecond}
	env.RegisterActivityWithOptions(acts.Drive, activity.RegisterOptions{Name: PipelineActivity})
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
