package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
)

// A run journaled by a newer hive is refused with what to do, never
// replayed into a state this hive cannot understand; --fresh abandons it
// and starts a new run. Every run this hive journals records its version.
func TestNewerJournalIsRefused(t *testing.T) {
	root := newRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": planFile("01-core", "01", ""),
	})
	ph := loadPhase(t, root, ".planning/phases/01-core")
	j := journal.NewMemory()
	run, err := j.CreateRun(ph.Dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	spec := engine.RunSpec{Phase: "01", MaxConcurrent: 1, Plans: []engine.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}}}
	payload, _ := json.Marshal(engine.Event{Type: engine.EvRunStarted, Time: time.Now(), Spec: &spec, Version: engine.Version + 1})
	if _, err := j.Append(run.ID, string(engine.EvRunStarted), time.Now(), payload); err != nil {
		t.Fatal(err)
	}

	_, err = Run(context.Background(), options(t, root, ph, j, shellAgent{completeScript}, &recorder{}))
	var newer *engine.NewerError
	if !errors.As(err, &newer) || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("Run = %v, want a refusal of the newer journal that names --fresh", err)
	}
	if _, err := Replay(j, run); !errors.As(err, &newer) {
		t.Fatalf("Replay = %v, want the same refusal", err)
	}

	o := options(t, root, ph, j, shellAgent{completeScript}, &recorder{})
	o.Fresh = true
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != engine.OutcomeComplete {
		t.Fatalf("Run --fresh = %v, outcome %q", err, res.Snapshot.Outcome)
	}
	if res.Run.ID == run.ID {
		t.Fatalf("--fresh resumed the newer run %d instead of starting one", run.ID)
	}
	var first engine.Event
	if err := j.Each(res.Run.ID, func(rec journal.Record) error {
		if first.Type == "" {
			return json.Unmarshal(rec.Payload, &first)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if first.Type != engine.EvRunStarted || first.Version != engine.Version {
		t.Fatalf("the new run starts with %s version %d, want run-started version %d", first.Type, first.Version, engine.Version)
	}
}
