package roles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/pipeline"
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
	ch := &pipeline.Challenge{From: "tester", To: "implementer", Issue: "HEAD is ignored", Evidence: "curl -I", Suggestion: "route HEAD"}
	ctx := &pipeline.Context{Challenge: ch, Rechecking: ch, Overruled: ch,
		Fix:        &pipeline.Tests{Command: "go test ./...", ExitCode: 1, Passed: 2, Failed: 1, Failing: []string{"TestHealth"}, Output: "--- FAIL: TestHealth"},
		LintErrors: []string{"01-01-PLAN.md:3: no files_modified"},
		Decisions:  []pipeline.Decision{{Question: "REST or GraphQL?", Choice: "REST", By: "default"}},
		Warnings:   []string{"comb: two handlers"}, Retry: "hive was restarted"}
	for _, role := range pipeline.Roles {
		src, text, err := Resolve(t.TempDir(), "", role)
		if err != nil || src.Origin != FromBundled {
			t.Fatalf("%s: %+v %v", role, src, err)
		}
		d := Data{Role: role, Objective: "add a health check endpoint", Previous: []string{"architect", "implementer"}, Context: ctx,
			PhaseDir: ".planning/phases/01-health", PhaseNumber: "01", PhaseSlug: "01-health", TestCommand: "go test ./..."}
		out, err := Render(role, text, d)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		for _, want := range []string{"add a health check endpoint", "<!--HIVE_REPORT", `"status": "needs_input"`, "Challenge from tester",
			"HEAD is ignored", "TestHealth", "REST or GraphQL?", "comb: two handlers", "hive was restarted", "Your challenge was overruled"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s's prompt lacks %q", role, want)
			}
		}
		phase0 := strings.Contains(out, "## Phase 0: Challenge the Handoff")
		if phase0 != (role != pipeline.RoleArchitect) {
			t.Errorf("%s's prompt has Phase 0: %v", role, phase0)
		}
		if phase0 && !strings.Contains(out, `"challenged_agent": "[one of: architect, implementer]"`) {
			t.Errorf("%s's Phase 0 does not name whom it may challenge", role)
		}
		if role == pipeline.RoleArchitect && !strings.Contains(out, ".planning/phases/01-health/") {
			t.Errorf("the architect is not told where to write its plans")
		}
	}
	// The first role of a quick workflow has nobody to challenge.
	_, text, _ := Resolve(t.TempDir(), "", pipeline.RoleImplementer)
	out, err := Render("implementer", text, Data{Role: "implementer", Objective: "fix the typo"})
	if err != nil || strings.Contains(out, "Phase 0") || strings.Contains(out, `"challenge"`) {
		t.Errorf("a first implementer's prompt offers a challenge (%v):\n%s", err, out)
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
	if _, _, err := Resolve(root, home, "react-implementer"); err == nil || !strings.Contains(err.Error(), ProjectDir) {
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
	want := "architect=bundled comb=bundled documenter=bundled implementer=bundled reviewer=project tester=global ui-designer=bundled vue-implementer=project"
	if strings.Join(names, " ") != want {
		t.Errorf("List = %s\nwant   %s", strings.Join(names, " "), want)
	}
}
