package planning

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/handoff"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/work"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestHandoffOfAPause: the handoff file of a team paused in the middle of
// a 6-plan phase with 3 agents (one done, one at a checkpoint, two handing
// over with notes, two not started), from the engine's state alone, in
// seed 001's format; it reads back.
func TestHandoffOfAPause(t *testing.T) {
	ph := &plan.Phase{Number: "03", Slug: "api", Dir: ".planning/phases/03-api"}
	plans := map[string]*plan.Plan{}
	spec := phase.RunSpec{Phase: "03", MaxConcurrent: 3, Team: true, Worktrees: true}
	for i := 1; i <= 6; i++ {
		p := &plan.Plan{ID: fmt.Sprintf("03-%02d", i), Name: fmt.Sprintf("Endpoint group %d", i)}
		for n := 1; n <= 3; n++ {
			p.Tasks = append(p.Tasks, plan.Task{Number: n, Name: fmt.Sprintf("Handler %d%c", i, 'a'+n-1)})
		}
		plans[p.ID] = p
		spec.Plans = append(spec.Plans, phase.PlanSpec{ID: p.ID, Name: p.Name, Wave: 1, Tasks: 3, Stops: []phase.Stop{{Task: 2, Type: "decision"}}})
	}
	e := engine.New()
	clock := time.Date(2026, 1, 26, 10, 29, 0, 0, time.UTC)
	step := func(ev phase.Event) {
		t.Helper()
		clock = clock.Add(time.Second)
		ev.Time = clock
		if _, err := e.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	step(phase.Event{Type: phase.EvRunStarted, Spec: &spec})
	step(phase.Event{Type: phase.EvProgress, Plan: "03-01", Attempt: 1, Task: 1, Text: "Task 1 complete"})
	step(phase.Event{Type: phase.EvCheckpoint, Plan: "03-02", Attempt: 1, Checkpoint: &phase.Checkpoint{Type: "decision", Task: 2, Options: []string{"rest", "grpc"}}})
	step(phase.Event{Type: phase.EvProgress, Plan: "03-03", Attempt: 1, Task: 2, Text: "Task 2 complete"})
	step(phase.Event{Type: phase.EvPause})
	step(phase.Event{Type: phase.EvReport, Plan: "03-01", Attempt: 1, Report: &work.Report{Status: work.ReportPartial,
		Summary: "Task 2 half done: the b handler is in WIP commit 1a2b3c4", Concerns: []string{"go test ./src/p1 needs GOFLAGS=-mod=mod"}}})
	step(phase.Event{Type: phase.EvUsage, Plan: "03-01", Attempt: 1, ContextTokens: 48_000, ContextWindow: 200_000})
	step(phase.Event{Type: phase.EvReport, Plan: "03-03", Attempt: 1, Report: &work.Report{Status: work.ReportPartial, Summary: "Task 3 next; nothing half done"}})
	step(phase.Event{Type: phase.EvUsage, Plan: "03-03", Attempt: 1})
	s := e.Snapshot()
	if !s.Paused {
		t.Fatal("the team did not pause")
	}
	h := Handoff(s, ph, plans)
	got := handoff.Render(h)
	golden := filepath.Join("testdata", "handoff_pause.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("handoff file:\n%s\nwant:\n%s", got, want)
	}
	if _, err := handoff.Parse(got); err != nil {
		t.Errorf("the handoff file does not read back: %v", err)
	}
}
