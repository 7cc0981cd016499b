package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/pipeline"
)

// midRun steps a full workflow to the tester's second challenge of the
// implementer-fix, through a default decision and a fix loop.
func midRun(t *testing.T) pipeline.Snapshot {
	t.Helper()
	m := pipeline.New()
	step := func(ev pipeline.Event) {
		t.Helper()
		if _, err := m.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	attempt := func(job string) int {
		for _, j := range m.Snapshot().Jobs {
			if j.ID == job {
				return j.Attempts
			}
		}
		return 0
	}
	role := func(job, status string, r engine.Report) {
		r.Status = status
		step(pipeline.Event{Type: pipeline.EvReport, Job: job, Attempt: attempt(job), Report: &r})
		step(pipeline.Event{Type: pipeline.EvAgentExited, Job: job, Attempt: attempt(job)})
	}
	step(pipeline.Event{Type: pipeline.EvStarted, Spec: &pipeline.Spec{Objective: "add a health check endpoint", Workflow: pipeline.Full, AutoAnswer: true}})
	role("architect", engine.ReportNeedsInput, engine.Report{Blocker: "REST or GraphQL?", Options: []string{"REST", "GraphQL"}, DefaultChoice: "REST"})
	role("architect", engine.ReportComplete, engine.Report{})
	step(pipeline.Event{Type: pipeline.EvLinted})
	step(pipeline.Event{Type: pipeline.EvPhaseDone, OK: true})
	role("comb", engine.ReportComplete, engine.Report{})
	role("tester", engine.ReportComplete, engine.Report{})
	step(pipeline.Event{Type: pipeline.EvTestsRan, Tests: &pipeline.Tests{ExitCode: 1, Failed: 1, Failing: []string{"TestHealth"}}})
	role(pipeline.FixJob, engine.ReportComplete, engine.Report{})
	role("tester", engine.ReportChallenge, engine.Report{ChallengedAgent: "implementer", Issue: "HEAD requests get 405"})
	role(pipeline.FixJob, engine.ReportComplete, engine.Report{})
	role("tester", engine.ReportChallenge, engine.Report{ChallengedAgent: "implementer", Issue: "HEAD requests still get 405, now with a body"})
	return m.Snapshot()
}

// The pipeline view at 120 and 80 columns: done roles, the implementers
// side by side, the challenges and the fix loop on the tester's edge, the
// decision, and the question that waits; no line wider than the terminal.
func TestPipelineView(t *testing.T) {
	s := midRun(t)
	plans := []PlanState{{"05-01", engine.Complete}, {"05-02", engine.Complete}, {"05-03", engine.Complete}}
	for _, w := range []int{120, 80} {
		got := ansi.Strip(PipelineView(s, plans, w))
		golden(t, "pipeline_"+map[int]string{120: "120", 80: "80"}[w], got)
		checkFits(t, got, w, 100)
	}
	running := ansi.Strip(PipelineView(pipeline.Snapshot{Jobs: []pipeline.Job{{ID: "architect", Role: "architect", State: pipeline.Done, Attempts: 1},
		{ID: pipeline.PhaseJob, Role: "implementer", Phase: true, State: pipeline.Running, Attempts: 1}}},
		[]PlanState{{"05-01", engine.Complete}, {"05-02", engine.Running}, {"05-03", engine.Pending}}, 80))
	golden(t, "pipeline_parallel", running)
}
