package bench_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/bench"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/cli"
	"github.com/hivectl/hive/internal/testsupport"
)

// asHive makes this test binary play the hive binary when it is started as
// an agent (hive __sim) or as the memory group's child (hive bench).
const asHive = "HIVE_BENCH_TEST_AS_HIVE"

func TestMain(m *testing.M) {
	if os.Getenv(asHive) == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

// TestQuickRun runs every group in quick mode and checks that the report
// has each row with a sane value. It never judges the timings: the machine
// running the tests decides those.
func TestQuickRun(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("starts a few hundred agent processes (CI runs it always)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asHive, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := bench.Run(ctx, report.Options{Quick: true, Seed: 1, HiveBin: self, Tools: os.Getenv("HIVE_TOOLS")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, r := range rep.Rows {
		groups[r.Group]++
		t.Logf("%-10s %-55s %-40s %s %s", r.Group, r.Name, r.Figure, r.Status, r.Note)
		switch r.Status {
		case report.Failed:
			t.Errorf("%s: %s could not be measured: %s", r.Group, r.Name, r.Note)
			continue
		case report.Skipped:
			// The temporal group needs the temporal CLI (make temporal),
			// which CI builds; the tokens group is hive-dev's
			// (internal/devbench has its test).
			if r.Note != bench.HiveDev && (r.Group != "temporal" || os.Getenv("CI") != "") {
				t.Errorf("%s: %s skipped: %s", r.Group, r.Name, r.Note)
			}
			continue
		case report.Pass, report.Miss:
			if r.Target == "" {
				t.Errorf("%s: %s is judged without a target", r.Group, r.Name)
			}
		case report.Info:
		default:
			t.Errorf("%s: %s has status %q", r.Group, r.Name, r.Status)
		}
		// A count whose goal is zero may be zero; every other figure is positive.
		// The pipeline group's counts (checkpoints, a bin of the
		// reliability table) may be zero too.
		zeroOK := r.Target == "0" || (r.Group == "pipeline" && r.Status == report.Info)
		// A difference of two wall times (hive beyond the bare loop,
		// Temporal beyond local) may come out at or below zero on a
		// noisy machine, more so with the few plans of --quick.
		difference := strings.Contains(r.Name, "beyond bare spawning") || strings.Contains(r.Name, "overhead per plan") || strings.Contains(r.Name, "overhead per run")
		if !difference && (r.Value < 0 || (r.Value == 0 && !zeroOK)) || r.Figure == "" || r.Unit == "" {
			t.Errorf("%s: %s: value %v %q, figure %q", r.Group, r.Name, r.Value, r.Unit, r.Figure)
		}
		if r.Unit == "ratio" && r.Group == "makespan" && r.Value < 0.999 {
			t.Errorf("%s: %s = %v: a schedule cannot beat the lower bound, nor rigid waves... by much", r.Group, r.Name, r.Value)
		}
	}
	want := map[string]int{"makespan": 6, "overhead": 4, "checkpoint": 6, "tokens": 1, "budget": 3, "context": 8, "resume": 1, "memory": 1, "pipeline": 9, "temporal": 1}
	names := bench.Names(bench.With())
	for _, g := range names {
		if groups[g] < want[g] {
			t.Errorf("group %s has %d rows, want at least %d", g, groups[g], want[g])
		}
	}
	if !slices.Equal(names, []string{"makespan", "overhead", "checkpoint", "tokens", "budget", "context", "resume", "memory", "pipeline", "temporal"}) {
		t.Errorf("groups %v", names)
	}
}
