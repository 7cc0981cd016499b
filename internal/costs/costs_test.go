package costs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/work"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// journaled writes events into a new run of the journal at path.
func journaled[E any](t *testing.T, path, key string, typ func(E) string, evs ...E) {
	t.Helper()
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	run, err := j.CreateRun(key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		raw, _ := json.Marshal(ev)
		if _, err := j.Append(run.ID, typ(ev), time.Now(), raw); err != nil {
			t.Fatal(err)
		}
	}
}

// Both journals are read; each turn counts once, in the role and model it
// was spent on: a phase run's executors, resolvers and verifier, priced
// by hive or at the CLI's figure, and a hive run's roles and the new part
// of each phase run its implementers' phase reported.
func TestReadSumsEveryTurnOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".hive"), 0o755); err != nil {
		t.Fatal(err)
	}
	typeOf := func(ev phase.Event) string { return string(ev.Type) }
	journaled(t, filepath.Join(root, ".hive", "journal.db"), ".planning/phases/01-core", typeOf,
		phase.Event{Type: phase.EvAgentStarted, Plan: "01-01", Attempt: 1},
		// A request mid-turn, then the turn's end: one turn, both spends.
		phase.Event{Type: phase.EvSpend, Plan: "01-01", Attempt: 1, Model: "m", InputTokens: 10, Priced: true, TurnUSD: 0.5, CostUSD: 0.4},
		phase.Event{Type: phase.EvUsage, Plan: "01-01", Attempt: 1, Model: "m", InputTokens: 100, OutputTokens: 20, Priced: true, TurnUSD: 1, CostUSD: 1.2},
		phase.Event{Type: phase.EvAgentStarted, Plan: "01-01", Attempt: 2, Role: "comb"},
		// Not priced by hive: the CLI's figure, less what it said before.
		phase.Event{Type: phase.EvUsage, Plan: "01-01", Attempt: 2, Model: "m", InputTokens: 5, CostUSD: 0.25},
		phase.Event{Type: phase.EvUsage, Plan: phase.VerifyID, Attempt: 1, Model: "m", OutputTokens: 7, Priced: true, TurnUSD: 0.1},
	)
	pipe := func(ev roleplan.Event) string { return string(ev.Type) }
	journaled(t, filepath.Join(root, ".hive", "runs.db"), "run", pipe,
		roleplan.Event{Type: roleplan.EvUsage, Job: "architect", Attempt: 1, Model: "m", Spend: work.Spend{InputTokens: 30, CostUSD: 0.3}},
		roleplan.Event{Type: roleplan.EvUsage, Job: "architect", Attempt: 1, Model: "m", Spend: work.Spend{InputTokens: 50, CostUSD: 0.5}},
		roleplan.Event{Type: roleplan.EvPhaseDone, Job: roleplan.PhaseJob, PhaseRun: 3, Spend: work.Spend{InputTokens: 1000, CostUSD: 2}},
		// The same phase run again (a resume): only what is new counts.
		roleplan.Event{Type: roleplan.EvPhaseDone, Job: roleplan.PhaseJob, PhaseRun: 3, Spend: work.Spend{InputTokens: 1500, CostUSD: 3}},
	)
	rows, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		run, role string
		turns     int
		tokens    int64
		usd, cli  float64
	}
	want := []got{
		{"phase 01-core #1", "comb", 1, 5, 0.25, 0.25},
		{"phase 01-core #1", "executor", 1, 130, 1.5, 1.2},
		{"phase 01-core #1", "verifier", 1, 7, 0.1, 0},
		{"hive run #1", "architect", 2, 80, 0.5, 0},
		{"hive run #1", roleplan.PhaseJob, 0, 1500, 3, 0},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %d", rows, len(want))
	}
	for i, w := range want {
		r := rows[i]
		g := got{r.Run, r.Role, r.Turns, r.InputTokens + r.OutputTokens, round(r.CostUSD), round(r.CLICostUSD)}
		if g != w {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	if total := Total(rows); total.Turns != 5 || round(total.CostUSD) != 5.35 {
		t.Errorf("total %d turns, $%.2f; want 5 turns, $5.35", total.Turns, total.CostUSD)
	}
}

func round(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
