package runconfig

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// The estimate of a task comes from the project's history: the executors'
// usage (turn ends and mid-turn requests, every attempt) over the tasks
// they reported done; the verifier and resolvers do not count.
func TestExecutorTaskUsage(t *testing.T) {
	j := journaltest.NewMemory()
	if u, err := ExecutorTaskUsage(j); err != nil || u != nil {
		t.Fatalf("no history: %v, %v", u, err)
	}
	run, err := j.CreateRun(".planning/phases/01-core", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []phase.Event{
		{Type: phase.EvAgentStarted, Plan: "01-01", Attempt: 1},
		{Type: phase.EvSpend, Plan: "01-01", Attempt: 1, InputTokens: 1000, CacheReadTokens: 30000, OutputTokens: 100},
		{Type: phase.EvProgress, Plan: "01-01", Attempt: 1, Task: 1},
		{Type: phase.EvUsage, Plan: "01-01", Attempt: 1, InputTokens: 1000, CacheWriteTokens: 2000, OutputTokens: 3900},
		{Type: phase.EvAgentStarted, Plan: "01-01", Attempt: 2},
		{Type: phase.EvProgress, Plan: "01-01", Attempt: 2, Task: 1}, // the same task again: once
		{Type: phase.EvProgress, Plan: "01-01", Attempt: 2, Task: 2},
		{Type: phase.EvUsage, Plan: "01-01", Attempt: 2, InputTokens: 2000, CacheReadTokens: 10000, OutputTokens: 4000},
		{Type: phase.EvAgentStarted, Plan: "01-01", Attempt: 3, Role: "comb"},
		{Type: phase.EvUsage, Plan: "01-01", Attempt: 3, InputTokens: 99999},
		{Type: phase.EvAgentStarted, Plan: phase.VerifyID, Attempt: 1, Role: "verifier"},
		{Type: phase.EvUsage, Plan: phase.VerifyID, Attempt: 1, InputTokens: 99999},
	} {
		raw, _ := json.Marshal(ev)
		if _, err := j.Append(run.ID, string(ev.Type), time.Now(), raw); err != nil {
			t.Fatal(err)
		}
	}
	u, err := ExecutorTaskUsage(j)
	want := pricing.Usage{Input: 2000, Output: 4000, CacheRead: 20000, CacheWrite: 1000}
	if err != nil || u == nil || *u != want {
		t.Fatalf("per task %+v, %v; want %+v", u, err, want)
	}
}
