package temporalbench_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/bench/temporalbench"
	"github.com/hivectl/hive/internal/cli"
	"github.com/hivectl/hive/internal/testsupport"
)

// asHive makes this test binary play the hive binary when it is started as
// an agent (hive __sim), a `hive run` or a `hive worker` (as in
// internal/bench's tests).
const asHive = "HIVE_BENCH_TEST_AS_HIVE"

func TestMain(m *testing.M) {
	if os.Getenv(asHive) == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

// TestTemporalGroup runs the temporal group in quick mode (a 40-plan phase,
// then 3 quick `hive run`s) on dev servers of the temporal CLI that `make
// temporal` builds: for the phase and for hive run, both makespans, their
// ratio and the overhead per plan or run are measured. Without
// the CLI it skips, except under CI, where a skipped server test proves
// nothing. It never judges the timings.
func TestTemporalGroup(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asHive, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rows := temporalbench.Rows(ctx, report.Options{Quick: true, Seed: 1, HiveBin: self})
	if len(rows) == 1 && rows[0].Status == report.Skipped {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %s (make test builds the temporal CLI)", rows[0].Name, rows[0].Note)
		}
		t.Skipf("%s: %s; skipped outside CI", rows[0].Name, rows[0].Note)
	}
	want := []string{"local runner makespan, 40 plans", "Temporal makespan, 40 plans, 4 workers", "Temporal makespan / local", "Temporal orchestration overhead per plan",
		"hive run makespan, 3 quick runs, local", "hive run makespan, 3 quick runs, Temporal, 4 workers", "hive run Temporal makespan / local", "hive run Temporal overhead per run"}
	if len(rows) != len(want) {
		for _, r := range rows {
			t.Logf("%s: %s %s %s", r.Name, r.Figure, r.Status, r.Note)
		}
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		t.Logf("%-42s %-12s %s %s", r.Name, r.Figure, r.Status, r.Note)
		if r.Group != "temporal" || r.Name != want[i] {
			t.Errorf("row %d is %s: %q, want temporal: %q", i, r.Group, r.Name, want[i])
		}
		if r.Status != report.Info {
			t.Errorf("%s: status %s: %s", r.Name, r.Status, r.Note)
		}
		// An overhead is a difference of two timings: on a loaded machine
		// it may come out below zero, and that is a measurement too.
		if (r.Value <= 0 && r.Unit != "ms") || r.Unit == "" || r.Figure == "" || strings.Contains(r.Figure, "NaN") {
			t.Errorf("%s: value %v %q, figure %q", r.Name, r.Value, r.Unit, r.Figure)
		}
	}
}
