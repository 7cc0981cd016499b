package temporal

import (
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// TestRecordedVersionDecides: a run-started event that names no engine
// version (a hive before version 7 sent it) runs on the version the
// history recorded, so a history written before the budget held new turns
// replays the start it recorded, and a new workflow holds it.
func TestRecordedVersionDecides(t *testing.T) {
	spec := &phase.RunSpec{Phase: "01", MaxConcurrent: 3, Budget: phase.Budget{Ceilings: work.Ceilings{USD: 10}}}
	for _, id := range []string{"a", "b", "c", "d"} {
		spec.Plans = append(spec.Plans, phase.PlanSpec{ID: id, Wave: 1, Tasks: 1})
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []phase.Event{
		{Type: phase.EvRunStarted, Time: start, Spec: spec, Attended: true},
		{Type: phase.EvUsage, Plan: "a", Attempt: 1, Priced: true, TurnUSD: 3},
		{Type: phase.EvPlanComplete, Plan: "a", Attempt: 1},
		{Type: phase.EvSpotChecked, Plan: "a", Attempt: 1, OK: true},
	}
	// What the spot-check's answer starts: d beside b's and c's turns in
	// flight, with $7 left of $10 and turns of $3.
	startsD := func(recorded int) bool {
		t.Helper()
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
		env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
		if recorded != 0 {
			env.OnGetVersion(engineChange, firstEngine, phase.Version).Return(workflow.Version(recorded))
		}
		for i, ev := range events {
			env.RegisterDelayedCallback(func() { env.SignalWorkflow(EventSignal, ev) }, time.Duration(i+1)*time.Second)
		}
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(CloseSignal, nil) }, time.Duration(len(events)+1)*time.Second)
		env.ExecuteWorkflow(RunWorkflowName, RunInput{})
		var res RunResult
		if err := env.GetWorkflowError(); err != nil {
			t.Fatalf("workflow: %v", err)
		}
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		last := res.Answers[len(res.Answers)-1]
		if last.Err != "" {
			t.Fatalf("the spot-check was refused: %s", last.Err)
		}
		for _, c := range last.Commands {
			if c.Type == phase.CmdStartAgent && c.Plan == "d" {
				return true
			}
		}
		return false
	}
	if startsD(0) {
		t.Errorf("a new workflow (engine version %d) started d, a turn the budget left after the turns in flight cannot hold", phase.Version)
	}
	if !startsD(6) {
		t.Errorf("a history of engine version 6 did not start d, as version 6 did")
	}
}
