package runreport

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// TestTimeline: hive report's timeline reads from the journal each step's
// span (the tester's agent, hive's test run, the human's answer), and
// counts as hive's own the time nothing of them ran: before the agent
// started, between the steps, after the last.
func TestTimeline(t *testing.T) {
	j := journaltest.NewMemory()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run, err := j.CreateRun(runjournal.Key, t0)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	wf := workflows.Workflow{Name: "tested", Steps: []workflows.Step{{Role: workflows.RoleTester}}}
	for _, ev := range []struct {
		at float64
		ev roleplan.Event
	}{
		{1, roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "o", Workflow: wf}}},
		{1.5, roleplan.Event{Type: roleplan.EvAgentStarted, Job: "tester", Attempt: 1, PID: 1}},
		{5, roleplan.Event{Type: roleplan.EvReport, Job: "tester", Attempt: 1, Report: &work.Report{Status: "blocked", Blocker: "which port?"}}},
		{5.5, roleplan.Event{Type: roleplan.EvAgentExited, Job: "tester", Attempt: 1}},
		{65.5, roleplan.Event{Type: roleplan.EvAnswer, Job: "tester", Checkpoint: 1, Text: "retry"}},
		{66, roleplan.Event{Type: roleplan.EvAgentStarted, Job: "tester", Attempt: 2, PID: 2}},
		{70, roleplan.Event{Type: roleplan.EvReport, Job: "tester", Attempt: 2, Report: &work.Report{Status: "complete", Summary: "s"}}},
		{71, roleplan.Event{Type: roleplan.EvAgentExited, Job: "tester", Attempt: 2}},
		{73, roleplan.Event{Type: roleplan.EvTestsRan, Job: "tester", Attempt: 2, Tests: &roleplan.Tests{Command: "go test ./...", Passed: 1}}},
	} {
		ev.ev.Time = at(ev.at)
		payload, _ := json.Marshal(ev.ev)
		if _, err := j.Append(run.ID, string(ev.ev.Type), ev.ev.Time, payload); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.FinishRun(run.ID, at(74.5), roleplan.OutcomeComplete); err != nil {
		t.Fatal(err)
	}
	runs, _ := j.Runs()
	rep, err := Build(context.Background(), j, &gitx.Repo{Root: t.TempDir()}, runs[0])
	if err != nil {
		t.Fatal(err)
	}
	tl := rep.Timeline
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	want := []Span{
		{Job: "tester", Role: "tester", Attempt: 1, Kind: SpanAgent, Start: s(1.5), Duration: s(4), HiveBefore: s(1.5)},
		{Job: "tester", Role: "tester", Kind: SpanHuman, Start: s(5.5), Duration: s(60)},
		{Job: "tester", Role: "tester", Attempt: 2, Kind: SpanAgent, Start: s(66), Duration: s(5), HiveBefore: s(0.5)},
		{Job: "tester", Role: "tester", Attempt: 2, Kind: SpanTests, Start: s(71), Duration: s(2)},
	}
	if len(tl.Spans) != len(want) {
		t.Fatalf("spans %+v\nwant %+v", tl.Spans, want)
	}
	for i := range want {
		if tl.Spans[i] != want[i] {
			t.Errorf("span %d: %+v\nwant %+v", i, tl.Spans[i], want[i])
		}
	}
	if tl.Wall != s(74.5) || tl.Agents != s(9) || tl.Checks != s(2) || tl.Human != s(60) || tl.After != s(1.5) || tl.Hive != s(3.5) {
		t.Errorf("wall %v agents %v checks %v human %v after %v hive %v", tl.Wall, tl.Agents, tl.Checks, tl.Human, tl.After, tl.Hive)
	}
	if want := 3.5 / 14.5; tl.HiveShare < want-1e-9 || tl.HiveShare > want+1e-9 {
		t.Errorf("hive's share %v, want %v (the human's minute left out)", tl.HiveShare, want)
	}
}
