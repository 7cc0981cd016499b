package e2etest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// The objective the pipeline tests give hive run, with each real CLI
// playing every role: a health check endpoint, which the architect plans
// in two plans (the handler with its test; its documentation) and the
// implementers carry out. The fake models read hive's prompts as a user
// would: the role's heading, the folder to plan in, the plan to run.

// HealthObjective is the objective of the pipeline tests.
const HealthObjective = "add a health check endpoint"

var (
	// RoleHeading finds the role a prompt starts: "# Role: architect".
	RoleHeading = regexp.MustCompile(`(?m)^# Role: (\S+)`)
	// PlanFolder finds the folder the architect is to write its plans in.
	PlanFolder = regexp.MustCompile("Write one phase of plans under `([^`]+)/`")
	// PlanToRun finds the plan an implementer is to carry out: its folder
	// and its id.
	PlanToRun = regexp.MustCompile(`- Plan: (\.planning/phases/[^\s]+)/(\d+-\d+)-PLAN\.md`)
)

// HealthTasks are the tasks of the architect's plans "01" and "02", each
// writing one file.
var HealthTasks = map[string][]Task{
	"01": {
		{Name: "health handler", File: "health.go", Body: "package main\n\nimport \"net/http\"\n\n// health answers 200 while the service runs.\nfunc health(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }\n"},
		{Name: "health test", File: "health_test.go", Body: "package main\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestHealth(t *testing.T) {\n\tw := httptest.NewRecorder()\n\thealth(w, httptest.NewRequest(http.MethodGet, \"/healthz\", nil))\n\tif w.Code != http.StatusOK {\n\t\tt.Fatalf(\"status %d\", w.Code)\n\t}\n}\n"},
	},
	"02": {
		{Name: "health docs", File: "docs/health.md", Body: "# Health check\n\nGET /healthz answers 200 while the service runs.\n"},
	},
}

// HealthService is the Go service the pipeline tests start from.
var HealthService = map[string]string{
	"go.mod":  "module example.com/svc\n\ngo 1.22\n",
	"main.go": "package main\n\nimport \"net/http\"\n\nfunc main() { http.ListenAndServe(\":8080\", nil) }\n",
}

// HealthPlan is the architect's plan num ("01", "02") of phase.
func HealthPlan(phase, num string) string {
	var files, tasks []string
	for i, tk := range HealthTasks[num] {
		files = append(files, tk.File)
		tasks = append(tasks, fmt.Sprintf("<task type=\"auto\">\n  <name>Task %d: %s</name>\n  <files>%s</files>\n  <action>Write %s.</action>\n  <done>%s exists</done>\n</task>", i+1, tk.Name, tk.File, tk.File, tk.File))
	}
	return fmt.Sprintf("---\nphase: %s\nplan: %s\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [%s]\nautonomous: true\n---\n\n<objective>\nPart %s of the health check.\n</objective>\n\n<tasks>\n%s\n</tasks>\n",
		phase, num, strings.Join(files, ", "), num, strings.Join(tasks, "\n"))
}

// HealthPlanPaths are the architect's plans, written in the folder its
// prompt names.
func HealthPlanPaths(folder string) []string {
	number, _, _ := strings.Cut(filepath.Base(folder), "-")
	return []string{fmt.Sprintf("%s/%s-01-PLAN.md", folder, number), fmt.Sprintf("%s/%s-02-PLAN.md", folder, number)}
}

// RoleReport is role's report, as every role's contract asks (the
// reviewer's issues and approval are ignored by the others' contracts).
func RoleReport(role string) string {
	return fmt.Sprintf("<!--HIVE_REPORT\n{\"status\": \"complete\", \"summary\": \"%s did its part\", \"confidence\": 0.9, \"issues\": [], \"approval_status\": \"approved\"}\nHIVE_REPORT-->", role)
}

// PlanComplete is an implementer's last words on plan id of phase folder
// dir, whose tasks are all done.
func PlanComplete(dir, id string, tasks int) string {
	return fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s", id, tasks, tasks, HealthSummaryPath(dir, id))
}

// HealthSummaryPath is where plan id's SUMMARY goes.
func HealthSummaryPath(dir, id string) string { return fmt.Sprintf("%s/%s-SUMMARY.md", dir, id) }

// HealthSummary is plan id's SUMMARY, its self-check passed.
func HealthSummary(dir, id string) string {
	_, num, _ := strings.Cut(id, "-")
	return fmt.Sprintf("---\nphase: %s\nplan: %s\n---\n# Plan %s\n\n## Self-Check: PASSED\n", filepath.Base(dir), num, id)
}

// Classic is the full workflow one role after another, as the fake
// models script it.
var Classic = workflows.Workflow{Name: "classic", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer},
	{Role: workflows.RoleComb}, {Role: workflows.RoleTester}, {Role: workflows.RoleReviewer}, {Role: workflows.RoleDocumenter}}}

// ClassicRun is the command line of hive run that runs Classic on
// HealthObjective, unattended.
func ClassicRun() []string {
	var roles []string
	for _, s := range Classic.Steps {
		roles = append(roles, s.Role)
	}
	return []string{"run", HealthObjective, "--roles", strings.Join(roles, ","), "--yes"}
}

// CheckHealthRun checks what a run of Classic on HealthObjective left in
// root: every job done at its first attempt with its role's report and
// tokens, the project's tests passed, the plans' files on main with one
// commit per task, and a clean work tree.
func CheckHealthRun(t testing.TB, root string, res piperun.Result) {
	t.Helper()
	s := res.Snapshot
	var jobs []string
	for _, j := range s.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s=%s/%d", j.ID, j.State, j.Attempts))
		if j.Spend.InputTokens <= 0 || j.Spend.OutputTokens <= 0 {
			t.Errorf("%s's tokens did not reach the run: %+v", j.ID, j.Spend)
		}
		if !j.Phase && (j.Report == nil || j.Report.Status != "complete" || j.Report.Summary != j.Role+" did its part") {
			t.Errorf("%s's report: %+v", j.ID, j.Report)
		}
	}
	if got := strings.Join(jobs, " "); s.Outcome != roleplan.OutcomeComplete || !res.Merged ||
		got != "architect=done/1 implementers=done/1 comb=done/1 tester=done/1 reviewer=done/1 documenter=done/1" {
		t.Fatalf("outcome %s merged %v jobs %s notes %q", s.Outcome, res.Merged, got, res.Notes)
	}
	if s.Tests == nil || s.Tests.ExitCode != 0 || s.Tests.Passed < 1 {
		t.Errorf("tests: %+v", s.Tests)
	}
	CheckHealthWork(t, root)
	if st := Dirty(t, root); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
}

// CheckHealthWork fails t unless main in root holds every file of the
// health check's plans and one commit per task.
func CheckHealthWork(t testing.TB, root string) {
	t.Helper()
	want := map[string]int{}
	for num, tasks := range HealthTasks {
		for i, tk := range tasks {
			if _, err := os.Stat(filepath.Join(root, tk.File)); err != nil {
				t.Errorf("main lacks %s: %v", tk.File, err)
			}
			want[fmt.Sprintf("01-%s/%d", num, i+1)] = 1
		}
	}
	if got := TaskCommits(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Hive-Task trailers on main %v, want %v", got, want)
	}
}
