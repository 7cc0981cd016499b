package engine

import (
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// A continuation agent carries every answer already given in its plan: an
// agent that crashes after two answered checkpoints is replaced by one
// whose continuation lists both, so no question is asked twice.
func TestContinuationCarriesEveryAnswer(t *testing.T) {
	e := New()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(ev phase.Event) []phase.Command {
		t.Helper()
		now = now.Add(time.Second)
		ev.Time = now
		if ev.Plan != "" && ev.Attempt == 0 && e.byID[ev.Plan] != nil {
			ev.Attempt = e.byID[ev.Plan].Attempt
		}
		cmds, err := e.Step(ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		return cmds
	}
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 1, Team: true, Retries: 1,
		Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 4}}}
	step(phase.Event{Type: phase.EvRunStarted, Spec: &spec})
	step(phase.Event{Type: phase.EvAgentStarted, Plan: "01-01", PID: 7})
	step(phase.Event{Type: phase.EvCheckpoint, Plan: "01-01", Checkpoint: &phase.Checkpoint{Type: "decision", Task: 1, Options: []string{"sqlite", "bolt"}}})
	step(phase.Event{Type: phase.EvAnswer, Plan: "01-01", Text: "sqlite"})
	step(phase.Event{Type: phase.EvProgress, Plan: "01-01", Task: 1, Total: 4})
	step(phase.Event{Type: phase.EvCheckpoint, Plan: "01-01", Checkpoint: &phase.Checkpoint{Type: "human-verify", Task: 3}})
	step(phase.Event{Type: phase.EvAnswer, Plan: "01-01", Text: "approved"})
	step(phase.Event{Type: phase.EvProgress, Plan: "01-01", Task: 3, Total: 4})
	step(phase.Event{Type: phase.EvAgentExited, Plan: "01-01", ExitCode: 3, Reason: "crashed"})
	cmds := step(phase.Event{Type: phase.EvSpotChecked, Plan: "01-01", Reason: "no SUMMARY"})
	var cont *phase.Continuation
	for _, c := range cmds {
		if c.Type == phase.CmdStartAgent {
			cont = c.Continuation
		}
	}
	if cont == nil {
		t.Fatalf("no continuation agent started: %+v", cmds)
	}
	if len(cont.Answered) != 2 || cont.Answered[0].Answer != "sqlite" || cont.Answered[0].Task != 1 ||
		cont.Answered[1].Answer != "approved" || cont.Answered[1].Task != 3 {
		t.Fatalf("continuation answers = %+v, want task 1 sqlite and task 3 approved", cont.Answered)
	}
}

// The run's active time leaves out the time hive was down: the gap before a
// resume, and an answer given with `hive answer` meanwhile.
func TestActiveTimeExcludesDowntime(t *testing.T) {
	e := New()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(at time.Duration, ev phase.Event) {
		t.Helper()
		ev.Time = t0.Add(at)
		if ev.Plan != "" && e.byID[ev.Plan] != nil {
			ev.Attempt = e.byID[ev.Plan].Attempt
		}
		if _, err := e.Step(ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 1, Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 2}}}
	step(0, phase.Event{Type: phase.EvRunStarted, Spec: &spec})
	step(2*time.Second, phase.Event{Type: phase.EvAgentStarted, Plan: "01-01", PID: 7})
	step(10*time.Second, phase.Event{Type: phase.EvCheckpoint, Plan: "01-01", Checkpoint: &phase.Checkpoint{Type: "human-verify", Task: 1}})
	// hive stops here; the answer comes half an hour later, hive an hour later.
	step(30*time.Minute, phase.Event{Type: phase.EvAnswer, Plan: "01-01", Text: "approved", By: "hive answer"})
	step(time.Hour, phase.Event{Type: phase.EvResumed})
	step(time.Hour+5*time.Second, phase.Event{Type: phase.EvAgentStarted, Plan: "01-01", PID: 8})
	if got := e.Snapshot().Active; got != 15*time.Second {
		t.Fatalf("active time %s, want 15s (the hour hive was down left out)", got)
	}
	// A plan's clock, from its start at 2s to 1h+5s, leaves the hour out too.
	if got := e.Snapshot().Working(t0.Add(2*time.Second), t0.Add(time.Hour+5*time.Second)); got != 13*time.Second {
		t.Fatalf("working time %s, want 13s", got)
	}
	// While hive runs, an answer from another terminal counts as it comes.
	step(time.Hour+9*time.Second, phase.Event{Type: phase.EvProgress, Plan: "01-01", Task: 1, Total: 2})
	if got := e.Snapshot().Active; got != 19*time.Second {
		t.Fatalf("active time %s, want 19s", got)
	}
}
