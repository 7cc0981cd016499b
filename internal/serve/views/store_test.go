package views

import (
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
)

func TestParseRunKey(t *testing.T) {
	for key, ok := range map[string]bool{
		"phase-1": true, "pipeline-12": true, "phase-0": false, "phase-": false, "phase-1a": false,
		"phase--1": false, "other-1": false, "phase-1/../x": false, "..": false, "": false, "phase-99999999999999999999": false,
	} {
		if _, _, got := ParseRunKey(key); got != ok {
			t.Errorf("ParseRunKey(%q) = %v, want %v", key, got, ok)
		}
	}
}

// The run page names each plan, as hive plans does, and a finished plan's
// detail is not the subject of its last commit.
func TestPhaseViewNamesPlans(t *testing.T) {
	snap := phase.Snapshot{Phase: "01", Plans: []*phase.PlanStatus{
		{Spec: phase.PlanSpec{ID: "01-01", Name: "Book model with validation", Tasks: 2}, State: phase.Complete, TasksDone: 2, Progress: "feat(01-01): add Book.Validate"},
		{Spec: phase.PlanSpec{ID: "01-02", Name: "ISBN parsing", Tasks: 2}, State: phase.Running, TasksDone: 1, Progress: "feat(01-02): parse ISBN-10"},
	}}
	v := phaseView(KindPhase, journal.Run{ID: 1, Started: time.Now()}, snap, true)
	if len(v.Items) != 2 || v.Items[0].Name != "Book model with validation" || v.Items[1].Name != "ISBN parsing" {
		t.Fatalf("items = %+v, want the plans' names", v.Items)
	}
	if d := v.Items[0].Detail; strings.Contains(d, "feat(") {
		t.Errorf("a complete plan's detail is its last commit subject %q", d)
	}
	if d := v.Items[1].Detail; d != "feat(01-02): parse ISBN-10" {
		t.Errorf("a running plan's detail = %q, want what it does now", d)
	}
}
