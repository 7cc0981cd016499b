package planner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__sim" {
		os.Exit(sim.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

func planWith(t *testing.T, objective string, timeout time.Duration, env ...string) (workflows.Workflow, runjournal.Planning) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Plan(ctx, Options{Repo: gittest.Service(t), Launcher: adapter.Sim{Bin: self, Env: env}, Objective: objective, Timeout: timeout})
}

// The planner's answer is the run's workflow: the implementer alone for a
// typo (seed 003's criterion 3), a team for a feature.
func TestPlannerPlans(t *testing.T) {
	t.Parallel()
	w, p := planWith(t, "fix the typo in README", time.Minute)
	if p.By != "planner" || w.String() != "implementer → build>implementer" || len(p.Attempts) != 1 || !strings.Contains(p.Reasoning, "implementer alone") {
		t.Errorf("typo: %s by %s (%+v)", w, p.By, p)
	}
	w, p = planWith(t, "add rate limiting to the API", time.Minute)
	if p.By != "planner" || w.String() != "architect → implementer → build>implementer → tester + reviewer" {
		t.Errorf("feature: %s by %s", w, p.By)
	}
	// A bad first answer is retried with what was wrong; the second does.
	w, p = planWith(t, "fix the typo in README", time.Minute, "HIVE_SIM_FAULTS=planner=badreport#1")
	if p.By != "planner" || len(p.Attempts) != 2 || p.Attempts[0].Error == "" || w.String() != "implementer → build>implementer" {
		t.Errorf("retried: %s by %s (%+v)", w, p.By, p.Attempts)
	}
}

// Schema-invalid, empty, refusing and slow answers all fall back to the
// rules, after one retry, and say why.
func TestPlannerFallsBack(t *testing.T) {
	t.Parallel()
	for fault, want := range map[string]string{
		"badreport": "is not one of complete",
		"empty":     "roles: empty",
		"blocked":   "the planner answered blocked",
		"hang":      "no answer within 1s",
	} {
		t.Run(fault, func(t *testing.T) {
			w, p := planWith(t, "fix the crash on start", time.Second, "HIVE_SIM_FAULTS=planner="+fault)
			if p.By != "rules" || w.Name != "bugfix" || len(p.Attempts) != 2 || !strings.Contains(p.Reasoning, want) {
				t.Errorf("%s by %s: %s (%+v)", w.Name, p.By, p.Reasoning, p.Attempts)
			}
		})
	}
}
