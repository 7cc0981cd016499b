package engine

import (
	"errors"
	"testing"
	"time"
)

// A state exported by a newer engine is refused like its journal; a state
// exported before the run started restores to a blank engine that takes a
// run-started.
func TestRestoreEdges(t *testing.T) {
	var newer *NewerError
	if _, err := Restore(State{Version: Version + 1}); !errors.As(err, &newer) {
		t.Fatalf("Restore of a newer state = %v, want a NewerError", err)
	}
	e, err := Restore(New().Export())
	if err != nil {
		t.Fatal(err)
	}
	spec := RunSpec{Phase: "01", MaxConcurrent: 1, Plans: []PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}}}
	cmds, err := e.Step(Event{Type: EvRunStarted, Time: time.Now(), Spec: &spec})
	if err != nil || len(cmds) == 0 {
		t.Fatalf("run-started after restoring a blank engine = %v, %v", cmds, err)
	}
	bad := e.Export()
	bad.Queue = []int{42}
	if _, err := Restore(bad); err == nil {
		t.Fatal("a state whose queue names no open checkpoint was restored")
	}
}
