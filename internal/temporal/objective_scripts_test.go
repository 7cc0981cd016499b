package temporal_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/pipeline/pipelinescript"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/temporal/objective"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// objectiveStep is one pipeline script directive as the shell gives it:
// an event, or a look at the state.
type objectiveStep struct {
	event *roleplan.Event
}

// TestPipelineScriptsThroughTemporal runs every pipeline script through
// objective.Workflow in Temporal's test environment: each event is a
// signal, each look at the state a query, and what the workflow answered
// must be what the scripts expect of the machine run locally: the same
// commands and the same states.
func TestPipelineScriptsThroughTemporal(t *testing.T) {
	scripts := filepath.Join("..", "pipeline", "testdata", "scripts")
	datadriven.Walk(t, scripts, func(t *testing.T, path string) {
		steps := readPipelineScript(t, path)
		// Each start directive starts a run: a workflow of its own.
		var outputs []string
		from := 0
		for i := 1; i <= len(steps); i++ {
			if i == len(steps) || (steps[i].event != nil && steps[i].event.Type == roleplan.EvStarted) {
				outputs = append(outputs, objectiveThroughWorkflow(t, steps[from:i])...)
				from = i
			}
		}
		i := 0
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out := outputs[i]
			i++
			return out
		})
	})
}

// readPipelineScript reads a script's directives beside a local machine,
// which must answer as the script expects.
func readPipelineScript(t *testing.T, path string) []objectiveStep {
	var steps []objectiveStep
	local := pipeline.New()
	script := pipelinescript.New()
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		ev := script.Read(t, d, local.Snapshot())
		steps = append(steps, objectiveStep{event: ev})
		if ev == nil {
			return pipelinescript.State(local.Snapshot())
		}
		if ev.Type == roleplan.EvStarted {
			local = pipeline.New()
		}
		return pipelinescript.Render(local.Step(*ev))
	})
	return steps
}

// objectiveThroughWorkflow signals each step's event to a fresh workflow
// (a second apart) and queries its state at each look, and returns what
// each step printed.
func objectiveThroughWorkflow(t *testing.T, steps []objectiveStep) []string {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(objective.Workflow, workflow.RegisterOptions{Name: objective.WorkflowName})
	outputs := make([]string, len(steps))
	signalled := 0
	for i, st := range steps {
		at := time.Duration(i+1) * time.Second
		if st.event == nil {
			env.RegisterDelayedCallback(func() {
				snap, err := temporaltest.Query[roleplan.Snapshot](env, temporal.StateQuery)
				if err != nil {
					t.Errorf("step %d: %v", i, err)
					return
				}
				outputs[i] = pipelinescript.State(snap)
			}, at)
			continue
		}
		signalled++
		ev := *st.event
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(objective.EventSignal, ev) }, at)
	}
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(temporal.CloseSignal, nil) }, time.Duration(len(steps)+1)*time.Second)
	env.ExecuteWorkflow(objective.WorkflowName, objective.Input{})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var res objective.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(res.Answers) != signalled {
		t.Fatalf("the workflow answered %d events, %d were signalled", len(res.Answers), signalled)
	}
	a := 0
	for i, st := range steps {
		if st.event == nil {
			continue
		}
		ans := res.Answers[a]
		a++
		if ans.Event != st.event.Type {
			t.Fatalf("answer %d is to %s, step %d signalled %s", ans.Seq, ans.Event, i, st.event.Type)
		}
		var err error
		if ans.Err != "" {
			err = errors.New(ans.Err)
		}
		outputs[i] = pipelinescript.Render(ans.Commands, err)
	}
	return outputs
}
