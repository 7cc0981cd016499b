package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// A state exported by a newer engine is refused like its journal; a state
// exported before the run started restores to a blank engine that takes a
// run-started.
func TestRestoreEdges(t *testing.T) {
	var newer *phase.NewerError
	if _, err := Restore(phase.State{Version: phase.Version + 1}); !errors.As(err, &newer) {
		t.Fatalf("Restore of a newer state = %v, want a NewerError", err)
	}
	e, err := Restore(New().Export())
	if err != nil {
		t.Fatal(err)
	}
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 1, Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}}}
	cmds, err := e.Step(phase.Event{Type: phase.EvRunStarted, Time: time.Now(), Spec: &spec})
	if err != nil || len(cmds) == 0 {
		t.Fatalf("run-started after restoring a blank engine = %v, %v", cmds, err)
	}
	bad := e.Export()
	bad.Queue = []int{42}
	if _, err := Restore(bad); err == nil {
		t.Fatal("a state whose queue names no open checkpoint was restored")
	}
}
