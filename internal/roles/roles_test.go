package roles

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every built-in prompt renders with every kind of context; all but the
// architect's hold Phase 0 with the role's own questions; all hold the
// HIVE_REPORT contract with each status.
func TestBundledPrompts(t *testing.T) {
	ch := &roleplan.Challenge{From: "tester", To: "implementer", Issue: "HEAD is ignored", Evidence: "curl -I", Suggestion: "route HEAD"}
	ctx := &roleplan.Context{Challenge: ch, Rechecking: ch, Overruled: ch,
		Fix:        &roleplan.Tests{Command: "go test ./...", ExitCode: 1, Passed: 2, Failed: 1, Failing: []string{"TestHealth"}, Output: "--- FAIL: TestHealth"},
		LintErrors: []string{"01-01-PLAN.md:3: no files_modified"},
		Decisions:  []roleplan.Decision{{Question: "REST or GraphQL?", Choice: "REST", By: "default"}},
		Warnings:   []string{"comb: two handlers"}, Retry: "hive was restarted",
		Evaluation: []roleplan.Verdict{{Aspect: roleplan.AspectRisk, Verdict: roleplan.VerdictBlock, Notes: []string{"no size limit on uploads"}}},
		Feedback:   "cover the error path"}
	for _, name := range bundledNames(t) {
		src, text, err := Resolve(t.TempDir(), "", name)
		if err != nil || src.Origin != FromBundled {
			t.Fatalf("%s: %+v %v", name, src, err)
		}
		role := src.Role
		d := Data{Role: role, Objective: "add a health check endpoint", Previous: []string{"architect", "implementer"}, Context: ctx,
			PhaseDir: ".planning/phases/01-health", PhaseNumber: "01", PhaseSlug: "01-health", TestCommand: "go test ./..."}
		out, err := Render(name, text, d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(out, "# Role: "+role) {
			t.Errorf("%s's prompt does not begin with # Role: %s (the sim knows a role's prompt by it)", name, role)
		}
		checkContract(t, name, out)
		for _, want := range []string{"add a health check endpoint", "<!--HIVE_REPORT", `"status": "needs_input"`, "Challenge from tester",
			"HEAD is ignored", "TestHealth", "REST or GraphQL?", "comb: two handlers", "hive was restarted", "Your challenge was overruled",
			"risk: no size limit on uploads", "cover the error path"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s's prompt lacks %q", name, want)
			}
		}
		phase0 := strings.Contains(out, "## Phase 0: Challenge the Handoff")
		if phase0 != (role != workflows.RoleArchitect && role != workflows.RolePlanner && role != workflows.RolePostmortem && role != workflows.RoleEvaluator) { // the planner, the postmortem and the evaluators are no role of the pipeline
			t.Errorf("%s's prompt has Phase 0: %v", name, phase0)
		}
		if phase0 && !strings.Contains(out, `"challenged_agent": "[one of: architect, implementer]"`) {
			t.Errorf("%s's Phase 0 does not name whom it may challenge", name)
		}
		if role == workflows.RoleArchitect && !strings.Contains(out, ".planning/phases/01-health/") {
			t.Errorf("the architect is not told where to write its plans")
		}
	}
	// The first role of a workflow has nobody to challenge: the
	// implementer of quick, the debugger of bugfix, the interviewer.
	for _, role := range []string{workflows.RoleImplementer, workflows.RoleDebugger, workflows.RoleInterviewer, workflows.RoleMigrator, workflows.RoleSecurity} {
		_, text, _ := Resolve(t.TempDir(), "", role)
		out, err := Render(role, text, Data{Role: role, Objective: "fix the typo"})
		if err != nil || strings.Contains(out, "Phase 0") || strings.Contains(out, `"challenge"`) {
			t.Errorf("a first %s's prompt offers a challenge (%v):\n%s", role, err, out)
		}
	}
}

// bundledNames are the roles and the variants built into hive.
func bundledNames(t *testing.T) []string {
	t.Helper()
	names := slices.Clone(workflows.Roles)
	entries, err := bundled.ReadDir("prompts")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok && !slices.Contains(names, n) {
			if roleOf(n) == "" {
				t.Errorf("prompts/%s plays no role", e.Name())
			}
			names = append(names, n)
		}
	}
	return names
}

// contracts are the fields hive reads from each role's report, which its
// prompt must show in the complete report's example.
var contracts = map[string][]string{
	workflows.RoleReviewer:         {"issues", "approval_status"},
	workflows.RoleSecurity:         {"issues", "approval_status"},
	workflows.RoleInterviewer:      {"questions"},
	workflows.RoleDebugger:         {"reproduction", "root_cause"},
	workflows.RoleBrowserValidator: {"screenshots", "issues"},
	workflows.RoleMigrator:         {"migration_files", "reversible"},
	workflows.RoleE2ETester:        {"tests_written", "tests_run", "passed", "failed"},
	workflows.RoleComponentTester:  {"tests_written", "tests_run", "passed", "failed"},
}

var reportRE = regexp.MustCompile(`(?s)<!--HIVE_REPORT\n(.*?)\nHIVE_REPORT-->`)

// checkContract checks that every HIVE_REPORT example of a rendered prompt
// is JSON, and that the complete one holds the fields of the role's
// contract, in the shapes hive reads.
func checkContract(t *testing.T, name, out string) {
	t.Helper()
	var complete map[string]any
	for _, m := range reportRE.FindAllStringSubmatch(out, -1) {
		var r map[string]any
		if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
			t.Errorf("%s: a HIVE_REPORT example is not JSON (%v):\n%s", name, err, m[1])
			continue
		}
		if r["status"] == "complete" {
			complete = r
		}
	}
	if complete == nil {
		t.Fatalf("%s: no complete HIVE_REPORT example", name)
	}
	for _, f := range contracts[roleOf(name)] {
		if _, ok := complete[f]; !ok {
			t.Errorf("%s's complete report lacks %q", name, f)
		}
	}
	first := func(field string) map[string]any {
		list, _ := complete[field].([]any)
		if len(list) == 0 {
			t.Fatalf("%s's %s has no example", name, field)
		}
		m, _ := list[0].(map[string]any)
		return m
	}
	if _, ok := complete["issues"]; ok {
		issue := first("issues")
		for _, f := range []string{"severity", "category", "file", "line", "title", "description", "suggestion"} {
			if _, ok := issue[f]; !ok {
				t.Errorf("%s's issue lacks %q", name, f)
			}
		}
		if issue["severity"] != "blocker|high|medium|low" {
			t.Errorf("%s's issue severity is %v", name, issue["severity"])
		}
	}
	if _, ok := complete["questions"]; ok {
		q := first("questions")
		for _, f := range []string{"question", "options", "default", "why"} {
			if _, ok := q[f]; !ok {
				t.Errorf("%s's question lacks %q", name, f)
			}
		}
	}
	if s, ok := complete["approval_status"]; ok && s != "approved|changes_requested" {
		t.Errorf("%s's approval_status is %v", name, s)
	}
	// Roles that only look are told to commit nothing.
	readOnly := map[string]bool{workflows.RoleInterviewer: true, workflows.RoleSecurity: true, workflows.RoleBrowserValidator: true, workflows.RolePlanner: true, workflows.RolePostmortem: true, workflows.RoleEvaluator: true}[roleOf(name)]
	if commits := strings.Contains(out, "Commit your work before you report"); commits == readOnly {
		t.Errorf("%s's prompt tells it to commit: %v", name, commits)
	}
}

// A prompt's contract call must say whether the role commits, and its
// fields land in the complete report.
func TestContractKeyword(t *testing.T) {
	_, err := Render("x-reviewer", `{{template "report" (contract . "maybe" "")}}`, Data{Objective: "o"})
	if err == nil || !strings.Contains(err.Error(), "no-commit") {
		t.Errorf("an unknown keyword: %v", err)
	}
	out, err := Render("x-reviewer", `{{template "report" (contract . "commit" "\"x\": 1")}}`, Data{Objective: "o"})
	if err != nil || !strings.Contains(out, "\"files\": [\"paths you changed\"],\n  \"x\": 1,\n  \"decisions\"") {
		t.Errorf("the fields are not in the report (%v):\n%s", err, out)
	}
}

// Role names hold dashes: the longest role a variant's name ends with (or,
// failing that, begins with) is the one it plays.
func TestRoleOf(t *testing.T) {
	for name, want := range map[string]string{
		"e2e-tester": "e2e-tester", "vue-e2e-tester": "e2e-tester", "react-component-tester": "component-tester",
		"vue-tester": "tester", "svelte-ui-designer": "ui-designer", "implementer-vue": "implementer",
		"component-tester-svelte": "component-tester", "django-security": "security", "go-browser-validator": "browser-validator",
		"tester": "tester", "-tester": "", "executor": "", "testers": "", "implementer-": "",
	} {
		if got := roleOf(name); got != want {
			t.Errorf("roleOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// A project's prompt beats the user's, which beats hive's; variants play
// the role their name ends with; List shows where each came from.
func TestResolveOrder(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, GlobalDir, "tester.md"), "global tester {{.Objective}}")
	writeFile(t, filepath.Join(home, GlobalDir, "reviewer.md"), "global reviewer")
	writeFile(t, filepath.Join(root, ProjectDir, "reviewer.md"), "project reviewer")
	writeFile(t, filepath.Join(root, ProjectDir, "vue-implementer.md"), "vue {{template \"report\" .}}")
	writeFile(t, filepath.Join(root, ProjectDir, "implementer-vue.md"), "as the shell Hive's users may name it")
	writeFile(t, filepath.Join(root, ProjectDir, "executor.md"), "the phase executor's prompt, not a role")

	for name, want := range map[string]string{"tester": FromGlobal, "reviewer": FromProject, "vue-implementer": FromProject, "comb": FromBundled} {
		src, _, err := Resolve(root, home, name)
		if err != nil || src.Origin != want {
			t.Errorf("%s resolved to %+v (%v), want %s", name, src, err, want)
		}
	}
	src, text, _ := Resolve(root, home, "vue-implementer")
	if src.Role != "implementer" {
		t.Errorf("vue-implementer plays %q", src.Role)
	}
	if out, err := Render(src.Name, text, Data{Objective: "o"}); err != nil || !strings.Contains(out, "HIVE_REPORT") {
		t.Errorf("a variant cannot use the shared templates: %v %q", err, out)
	}
	if _, _, err := Resolve(root, home, "poet"); err == nil || !strings.Contains(err.Error(), "no role") {
		t.Errorf("an unknown role: %v", err)
	}
	if _, _, err := Resolve(root, home, "angular-implementer"); err == nil || !strings.Contains(err.Error(), ProjectDir) {
		t.Errorf("a variant nowhere: %v", err)
	}
	list, err := List(root, home)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name+"="+s.Origin)
	}
	all := append(bundledNames(t), "implementer-vue")
	slices.Sort(all)
	var want []string
	for _, n := range all {
		origin := map[string]string{"reviewer": FromProject, "tester": FromGlobal, "vue-implementer": FromProject, "implementer-vue": FromProject}[n]
		want = append(want, n+"="+cmp.Or(origin, FromBundled))
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("List = %s\nwant   %s", strings.Join(names, " "), strings.Join(want, " "))
	}
}
