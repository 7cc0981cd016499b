package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner/replay"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
	"github.com/hivectl/hive/internal/work"
)

// A run journaled by a newer hive is refused with what to do, never
// replayed into a state this hive cannot understand; --fresh abandons it
// and starts a new run. Every run this hive journals records its version.
func TestNewerJournalIsRefused(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	j := journaltest.NewMemory()
	run, err := j.CreateRun(ph.Dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 1, Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}}}
	payload, _ := json.Marshal(phase.Event{Type: phase.EvRunStarted, Time: time.Now(), Spec: &spec, Version: phase.Version + 1})
	if _, err := j.Append(run.ID, string(phase.EvRunStarted), time.Now(), payload); err != nil {
		t.Fatal(err)
	}

	_, err = Run(context.Background(), options(t, root, ph, j, shellAgent{completeScript}, &recorder{}))
	var newer *phase.NewerError
	if !errors.As(err, &newer) || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("Run = %v, want a refusal of the newer journal that names --fresh", err)
	}
	if _, err := replay.Run(j, run); !errors.As(err, &newer) {
		t.Fatalf("replay.Run = %v, want the same refusal", err)
	}

	o := options(t, root, ph, j, shellAgent{completeScript}, &recorder{})
	o.Schedule.Fresh = true
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run --fresh = %v, outcome %q", err, res.Snapshot.Outcome)
	}
	if res.Run.ID == run.ID {
		t.Fatalf("--fresh resumed the newer run %d instead of starting one", run.ID)
	}
	var first phase.Event
	if err := j.Each(res.Run.ID, func(rec journal.Record) error {
		if first.Type == "" {
			return json.Unmarshal(rec.Payload, &first)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if first.Type != phase.EvRunStarted || first.Version != phase.Version {
		t.Fatalf("the new run starts with %s version %d, want run-started version %d", first.Type, first.Version, phase.Version)
	}
}

// An agent's HIVE_REPORT block reaches the engine as a report event and is
// journaled whole, the keys hive does not read included.
func TestHiveReportIsJournaled(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	report := `<!--HIVE_REPORT {\"status\": \"partial\", \"confidence\": 0.7, \"summary\": \"two of three\", \"files_modified\": [\"src/a.go\"], \"decisions\": [{\"decision\": \"sqlite\", \"rationale\": \"no server\"}], \"next_role_hint\": \"tester\"} HIVE_REPORT-->`
	script := `printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' '` + report + `'` + completeScript
	j := journaltest.NewMemory()
	res, err := Run(context.Background(), options(t, root, ph, j, shellAgent{script}, &recorder{}))
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q", err, res.Snapshot.Outcome)
	}
	var got *work.Report
	if err := j.Each(res.Run.ID, func(rec journal.Record) error {
		var ev phase.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return err
		}
		if ev.Type == phase.EvReport {
			got = ev.Report
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("no report event in the journal")
	}
	if got.Status != "partial" || got.Confidence != 0.7 || len(got.Files) != 1 || len(got.Decisions) != 1 || got.Decisions[0].Rationale != "no server" ||
		string(got.Extra["next_role_hint"]) != `"tester"` {
		t.Fatalf("journaled report = %+v", got)
	}
	if r := res.Snapshot.Plans[0].Report; r == nil || r.Summary != "two of three" {
		t.Fatalf("the plan's report in the snapshot = %+v", r)
	}
}
