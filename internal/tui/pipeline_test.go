package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/pipeline"
)

// midRun steps a full workflow under a $5 budget, each role's session
// costing $0.35, to the tester's second challenge of the implementer-fix,
// through a default decision and a fix loop.
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
		step(pipeline.Event{Type: pipeline.EvUsage, Job: job, Attempt: attempt(job), Spend: engine.Spend{InputTokens: 9000, OutputTokens: 800, CostUSD: 0.35}})
		step(pipeline.Event{Type: pipeline.EvReport, Job: job, Attempt: attempt(job), Report: &r})
		step(pipeline.Event{Type: pipeline.EvAgentExited, Job: job, Attempt: attempt(job)})
	}
	step(pipeline.Event{Type: pipeline.EvStarted, Spec: &pipeline.Spec{Objective: "add a health check endpoint", Workflow: pipeline.Full, AutoAnswer: true,
		NoInterview: true, Facts: map[string]bool{pipeline.CondHasFrontend: false}, Budget: pipeline.Budget{USD: 5}}})
	role("architect", engine.ReportNeedsInput, engine.Report{Blocker: "REST or GraphQL?", Options: []string{"REST", "GraphQL"}, DefaultChoice: "REST"})
	role("architect", engine.ReportComplete, engine.Report{})
	step(pipeline.Event{Type: pipeline.EvLinted})
	step(pipeline.Event{Type: pipeline.EvPhaseDone, OK: true})
	role("comb", engine.ReportComplete, engine.Report{})
	step(pipeline.Event{Type: pipeline.EvBuilt, Job: pipeline.StepBuild, Attempt: 1, Tests: &pipeline.Tests{Command: "go build ./..."}})
	role("security", engine.ReportComplete, engine.Report{})
	role("tester", engine.ReportComplete, engine.Report{})
	step(pipeline.Event{Type: pipeline.EvTestsRan, Job: "tester", Tests: &pipeline.Tests{ExitCode: 1, Failed: 1, Failing: []string{"TestHealth"}}})
	built := func() { // what the fix changed builds again before the tester looks
		step(pipeline.Event{Type: pipeline.EvBuilt, Job: pipeline.StepBuild, Attempt: attempt(pipeline.StepBuild), Tests: &pipeline.Tests{Command: "go build ./..."}})
	}
	role(pipeline.FixJob, engine.ReportComplete, engine.Report{})
	built()
	role("tester", engine.ReportChallenge, engine.Report{ChallengedAgent: "implementer", Issue: "HEAD requests get 405"})
	role(pipeline.FixJob, engine.ReportComplete, engine.Report{})
	built()
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

// The live screen of hive run at 120×30 and 80×24: the view, the log lines
// that fit, and the answer being typed at the tester's question; enter
// sends it, and the answer line goes once nothing is asked.
func TestPipelineScreen(t *testing.T) {
	answers := make(chan string, 1)
	for _, size := range [][2]int{{120, 30}, {80, 24}} {
		var tm tea.Model = NewPipeline(answers, nil)
		tm, _ = tm.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		tm, _ = tm.Update(PipelineMsg{Snapshot: midRun(t)})
		tm, _ = tm.Update(PlansMsg{{"05-01", engine.Complete}, {"05-02", engine.Complete}})
		for i := range 40 {
			tm, _ = tm.Update(PipelineLogMsg(fmt.Sprintf("    %ds  tester          log line %d", i, i)))
		}
		for _, r := range "ov" {
			tm, _ = tm.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		tm, _ = tm.Update(tea.KeyPressMsg{Code: tea.KeyTab})
		got := ansi.Strip(tm.(PipelineModel).Screen())
		golden(t, fmt.Sprintf("pipeline_screen_%d", size[0]), got)
		checkFits(t, got, size[0], size[1])
		_, cmd := tm.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		if cmd == nil {
			t.Fatal("enter sent nothing")
		}
		cmd()
		if a := <-answers; a != "override" {
			t.Fatalf("sent %q, want the completed option override", a)
		}
	}
}

// A rich checkpoint (seed 003 §6.4) after the architect of refactor, with
// evaluation on: the three verdicts, what the architect produced, the
// computed confidence; details adds every check. At 120 and 80 columns.
func TestRichCheckpointView(t *testing.T) {
	m := pipeline.New()
	step := func(ev pipeline.Event) {
		t.Helper()
		if _, err := m.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	step(pipeline.Event{Type: pipeline.EvStarted, Spec: &pipeline.Spec{Objective: "add file uploads", Workflow: pipeline.Refactor,
		Routing: pipeline.Routing{Evaluate: true}}})
	step(pipeline.Event{Type: pipeline.EvReport, Job: "architect", Attempt: 1, Report: &engine.Report{Status: engine.ReportComplete, Summary: "4 plans for uploads"}})
	step(pipeline.Event{Type: pipeline.EvAgentExited, Job: "architect", Attempt: 1})
	step(pipeline.Event{Type: pipeline.EvLinted})
	step(pipeline.Event{Type: pipeline.EvEvaluated, Job: "architect", Attempt: 1, Evaluation: &pipeline.Evaluation{Role: "architect",
		Checks: &confidence.Score{Role: "architect", Points: 55, Max: 70, Checks: []confidence.Check{
			{Name: "plans lint clean", OK: true, Points: 20, Max: 20, Detail: "0 lint error(s)"},
			{Name: "referenced paths exist", OK: false, Points: 0, Max: 15, Detail: "0 of 1 referenced path(s) exist; missing: api/upload.go"},
			{Name: "tasks have verify and done", OK: true, Points: 20, Max: 20, Detail: "11 of 11 task(s)"},
			{Name: "few vague words", OK: true, Points: 15, Max: 15, Detail: "2 vague word(s) in 11 task(s)"}}},
		Verdicts: []pipeline.Verdict{{Aspect: "completeness", Verdict: "ok"},
			{Aspect: "coherence", Verdict: "warn", Notes: []string{"unclear how auth tokens refresh after upload"}},
			{Aspect: "risk", Verdict: "warn", Notes: []string{"no file size limit specified"}}},
		Produced: "4 plans, 11 tasks"}})
	for _, w := range []int{120, 80} {
		got := ansi.Strip(PipelineView(m.Snapshot(), nil, w))
		golden(t, fmt.Sprintf("pipeline_rich_checkpoint_%d", w), got)
		checkFits(t, got, w, 100)
	}
	step(pipeline.Event{Type: pipeline.EvAnswer, Checkpoint: m.Snapshot().Open.ID, Text: "details"})
	golden(t, "pipeline_rich_checkpoint_details", ansi.Strip(PipelineView(m.Snapshot(), nil, 120)))
}

// A tester with no test to run is shown skipped, with why, never ✓; a
// tester a human let go on past failing tests is skipped without it.
func TestPipelineViewNoTests(t *testing.T) {
	s := pipeline.Snapshot{Jobs: []pipeline.Job{{ID: "implementer", Role: "implementer", State: pipeline.Done, Attempts: 1},
		{ID: "tester", Role: "tester", State: pipeline.Skipped, Attempts: 1}}, Tests: &pipeline.Tests{None: true}}
	got := ansi.Strip(PipelineView(s, nil, 80))
	if !strings.Contains(got, "– tester  no test to run: not verified") || strings.Contains(got, "✓ tester") {
		t.Errorf("no tests:\n%s", got)
	}
	s.Tests = &pipeline.Tests{Command: "go test ./...", ExitCode: 1, Failed: 1}
	if got := ansi.Strip(PipelineView(s, nil, 80)); strings.Contains(got, "no test to run") || !strings.Contains(got, "– tester") {
		t.Errorf("failing tests the human went on past:\n%s", got)
	}
}
