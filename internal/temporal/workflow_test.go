package temporal

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/engine/enginescript"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// scripted is one script directive as a runner gives it: an event, or a
// look at the state.
type scripted struct {
	event *phase.Event
	view  string
}

// TestScriptsThroughTemporal runs every engine script through the workflow
// in Temporal's test environment: each event is a signal, each look at the
// state a query, and what the workflow answered must be what the scripts
// expect of the engine run locally: the same commands and the same states.
func TestScriptsThroughTemporal(t *testing.T) {
	scripts := filepath.Join("..", "engine", "testdata", "scripts")
	datadriven.Walk(t, scripts, func(t *testing.T, path string) {
		steps := readScript(t, path)
		// Each run directive starts a run: a workflow of its own.
		var outputs []string
		from := 0
		for i := 1; i <= len(steps); i++ {
			if i == len(steps) || (steps[i].event != nil && steps[i].event.Type == phase.EvRunStarted) {
				outputs = append(outputs, runThroughWorkflow(t, steps[from:i])...)
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

// readScript reads a script's directives as a runner gives them: an event
// names its plan's current attempt, so the script is read beside a local
// engine, which must answer as the script expects.
func readScript(t *testing.T, path string) []scripted {
	var steps []scripted
	local := engine.New()
	reader := enginescript.New()
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		st := reader.Read(t, d, local.Snapshot())
		if st.Event == nil {
			steps = append(steps, scripted{view: st.View})
			return enginescript.View(st.View, local.Snapshot())
		}
		if st.Event.Type == phase.EvRunStarted {
			local = engine.New()
		}
		steps = append(steps, scripted{event: st.Event})
		return enginescript.Render(local.Step(*st.Event))
	})
	return steps
}

// runThroughWorkflow signals each step's event to a fresh workflow (a
// second apart) and queries its state at each look, and returns what each
// step printed.
func runThroughWorkflow(t *testing.T, steps []scripted) []string {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	outputs := make([]string, len(steps))
	signalled := 0
	for i, st := range steps {
		at := time.Duration(i+1) * time.Second
		if st.event == nil {
			env.RegisterDelayedCallback(func() {
				snap, err := temporaltest.Query[phase.Snapshot](env, StateQuery)
				if err != nil {
					t.Errorf("step %d: %v", i, err)
					return
				}
				outputs[i] = enginescript.View(st.view, snap)
			}, at)
			continue
		}
		signalled++
		ev := *st.event
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(EventSignal, ev) }, at)
	}
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(CloseSignal, nil) }, time.Duration(len(steps)+1)*time.Second)
	env.ExecuteWorkflow(RunWorkflowName, RunInput{})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var res RunResult
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
		outputs[i] = enginescript.Render(ans.Commands, err)
	}
	return outputs
}

// TestContinueAsNewCarriesTheEngine: a run longer than one workflow run's
// share of events continues as new with the exported engine state, and the
// next workflow run goes on exactly where the engine was, its answers
// numbered on; a follower that had read only the first answers still gets
// the rest of the workflow run before from the next one.
func TestContinueAsNewCarriesTheEngine(t *testing.T) {
	const maxEventsPerRun = 5
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 2, Plans: []phase.PlanSpec{{ID: "01-01", Tasks: 1}, {ID: "01-02", Tasks: 1}}}
	events := []phase.Event{{Type: phase.EvRunStarted, Time: start, Spec: &spec, Attended: true}}
	for i := range 6 {
		events = append(events, phase.Event{Type: phase.EvUsage, Plan: "01-01", Attempt: 1, Time: start.Add(time.Duration(i+1) * time.Second), InputTokens: 10, OutputTokens: 1})
	}
	events = append(events, phase.Event{Type: phase.EvPlanComplete, Plan: "01-01", Attempt: 1, Time: start.Add(time.Minute)})

	var suite testsuite.WorkflowTestSuite
	run := func(in RunInput, evs []phase.Event) (*testsuite.TestWorkflowEnvironment, error) {
		env := suite.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
		env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
		for i, ev := range evs {
			env.RegisterDelayedCallback(func() { env.SignalWorkflow(EventSignal, ev) }, time.Duration(i+1)*time.Second)
		}
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(CloseSignal, nil) }, time.Duration(len(evs)+1)*time.Second)
		env.ExecuteWorkflow(RunWorkflowName, in)
		return env, env.GetWorkflowError()
	}
	_, err := run(RunInput{Limits: Limits{MaxEvents: maxEventsPerRun}}, events)
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want a continue-as-new after %d events, got %v", maxEventsPerRun, err)
	}
	var next RunInput
	if err := temporaltest.DecodeInput(can, &next); err != nil {
		t.Fatal(err)
	}
	if next.State == nil || next.Seq != maxEventsPerRun || next.Limits.MaxEvents != maxEventsPerRun {
		t.Fatalf("carried seq %d, state %v; want seq %d and a state", next.Seq, next.State != nil, maxEventsPerRun)
	}
	if n := len(next.Recent); n != maxEventsPerRun || next.Recent[n-1].Seq != maxEventsPerRun {
		t.Fatalf("carried the answers %+v, want the %d of the first workflow run", next.Recent, maxEventsPerRun)
	}
	// The next workflow run gets the events the first did not step.
	env, err := run(next, events[maxEventsPerRun:])
	if err != nil {
		t.Fatal(err)
	}
	lagging, err := env.QueryWorkflow(AnswersQuery, 2)
	var late []Answer
	if err == nil {
		err = lagging.Get(&late)
	}
	if err != nil || len(late) != len(events)-2 || late[0].Seq != 3 {
		t.Fatalf("a follower that read 2 answers is given %+v (%v), want every answer after the second", late, err)
	}
	var res RunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if n := len(res.Answers); n != len(events)-maxEventsPerRun || res.Answers[0].Seq != maxEventsPerRun+1 {
		t.Fatalf("answers after continue-as-new: %+v", res.Answers)
	}
	last := res.Answers[len(res.Answers)-1]
	if got, want := enginescript.Render(last.Commands, nil), "stop-agent 01-01 attempt=1\nspot-check 01-01 attempt=1 after=complete\n"; got != want {
		t.Fatalf("PLAN COMPLETE after continue-as-new:\n%s\nwant:\n%s", got, want)
	}
	restored, err := engine.Restore(*res.State)
	if err != nil {
		t.Fatal(err)
	}
	if p := restored.Snapshot().Plans[0]; p.InputTokens != 60 {
		t.Fatalf("01-01 counts %d input tokens across the two workflow runs, want 60", p.InputTokens)
	}
}
