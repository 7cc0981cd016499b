package workflows_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/workflows"
)

// TestShellHiveWorkflow reads a workflow file in the shell Hive's format:
// its phases in order, interview and build_verify as hive's interviewer
// and build, required false as a step that is not required, its Beads
// commands dropped from the task.
func TestShellHiveWorkflow(t *testing.T) {
	data := []byte(`{"name": "api", "description": "an API change", "phases": [
	  {"name": "interview", "type": "interview", "required": false},
	  {"name": "design", "agent": "architect", "required": true, "human_checkpoint_after": true,
	   "task": "Design it.\nbd create \"Task\" --parent {{EPIC_ID}} -p 2\nKeep it small."},
	  {"name": "implementation", "agent": "implementer", "needs_handoff_from": "architect"},
	  {"name": "build_check", "type": "build_verify", "required": true, "on_failure": "debugger"},
	  {"name": "ui", "agent": "ui-designer", "required": false, "condition": "has_frontend"},
	  {"name": "fix", "type": "fix_blocking"}]}`)
	w, err := workflows.Parse(".hive/workflows/api.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range w.Steps {
		got = append(got, fmt.Sprintf("%s/%s optional=%v checkpoint=%v cond=%s on_failure=%s", s.ID(), s.Role, s.Optional(), s.Checkpoint, s.Condition, s.OnFailure))
	}
	want := []string{
		"interviewer/interviewer optional=true checkpoint=false cond= on_failure=",
		"architect/architect optional=false checkpoint=true cond= on_failure=",
		"implementer/implementer optional=false checkpoint=false cond= on_failure=",
		"build/ optional=false checkpoint=false cond= on_failure=debugger",
		"ui-designer/ui-designer optional=true checkpoint=false cond=has_frontend on_failure=",
		"fix_blocking/ optional=false checkpoint=false cond= on_failure=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w.Steps[1].Task != "Design it.\nKeep it small." {
		t.Errorf("task %q: the Beads line should be gone", w.Steps[1].Task)
	}
	for _, bad := range []struct{ json, err string }{
		{`{"phases": [{"name": "x", "type": "deploy"}]}`, `type "deploy" is not one hive runs`},
		{`{"phases": [{"name": "x"}]}`, `no agent`},
		{`{"steps": [{"role": "tester", "after": ["reviewer"]}]}`, `after "reviewer": name a step before this one`},
		{`{"steps": [{"role": "tester", "condition": "has_gpu"}]}`, `condition "has_gpu": give one of has_frontend, has_tests`},
		{`{"steps": [{"type": "build", "role": "tester"}]}`, `a build step is hive's own`},
		{`{"steps": [{"role": "tester"}, {"role": "tester"}]}`, `tester comes twice`},
	} {
		if _, err := workflows.Parse("w.json", []byte(bad.json)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: error %v, want one saying %q", bad.json, err, bad.err)
		}
	}
	for _, w := range workflows.Builtins {
		if err := w.Validate(w.Name); err != nil {
			t.Errorf("built-in %s: %v", w.Name, err)
		}
	}
}

func TestPick(t *testing.T) {
	for objective, want := range map[string]string{
		"fix the crash when the config is empty": "bugfix",
		"refactor the store into two packages":   "refactor",
		"add a health check endpoint":            "full",
		"fix the typo in README":                 "minimal",
		"fix this typo":                          "minimal",
		"tweak the log format":                   "quick",
		"document the API in the README":         "docs",
		"add tests for the parser":               "test",
		"review the auth module":                 "review",
		"migrate users to the new schema":        "migration",
		"bump the version to 1.2":                "minimal",
		"redesign the authentication system":     "full",
	} {
		if w, why := workflows.Pick(objective); w.Name != want {
			t.Errorf("Pick(%q) = %s (%s), want %s", objective, w.Name, why, want)
		}
	}
}

// The planner's answer becomes a workflow: its roles in order, its groups
// side by side, hive's build after the implementer; a bad answer is an
// error that says what to fix.
func TestPlanned(t *testing.T) {
	w, err := workflows.Planned(workflows.PlannerAnswer{Roles: []string{"architect", "implementer", "tester", "reviewer", "documenter"},
		Parallel: [][]string{{"tester", "reviewer"}}, Reasoning: "a new feature"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "architect → implementer → build>implementer → tester + reviewer → documenter" {
		t.Errorf("workflow %s", got)
	}
	if w, err := workflows.Planned(workflows.PlannerAnswer{Roles: []string{"implementer"}, Reasoning: "a typo"}); err != nil || w.String() != "implementer → build>implementer" {
		t.Errorf("typo: %v %v", w.String(), err)
	}
	for _, bad := range []workflows.PlannerAnswer{
		{},
		{Roles: []string{"implementer"}},
		{Roles: []string{"poet"}, Reasoning: "x"},
		{Roles: []string{"implementer", "implementer"}, Reasoning: "x"},
		{Roles: []string{"architect"}, Reasoning: "x"},
		{Roles: []string{"implementer", "tester", "reviewer"}, Parallel: [][]string{{"implementer", "reviewer"}}, Reasoning: "x"},
	} {
		if _, err := workflows.Planned(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}
