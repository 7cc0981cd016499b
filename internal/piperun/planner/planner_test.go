package planner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/sim"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/workflows"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__sim" {
		os.Exit(sim.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

// service is a small Go web service, committed on main.
func service(t *testing.T) *gitx.Repo {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/svc\n\ngo 1.22\n",
		"main.go":      "package main\n\nimport \"net/http\"\n\nfunc routes() *http.ServeMux { return http.NewServeMux() }\n\nfunc main() { http.ListenAndServe(\":8080\", routes()) }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestRoutes(t *testing.T) {\n\tif routes() == nil {\n\t\tt.Fatal(\"no routes\")\n\t}\n}\n",
		"README.md":    "# svc\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Hive Test"}, {"config", "user.email", "hive@example.invalid"},
		{"config", "commit.gpgsign", "false"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func planWith(t *testing.T, objective string, timeout time.Duration, env ...string) (workflows.Workflow, runjournal.Planning) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Plan(ctx, Options{Repo: service(t), Launcher: adapter.Sim{Bin: self, Env: env}, Objective: objective, Timeout: timeout})
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
