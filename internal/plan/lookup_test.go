package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFiles writes files (repository-relative names) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		abs := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A plan of phase 5 may depend on a plan of an earlier phase by its full id:
// hive looks it up there and in archived milestones, whatever naming its
// SUMMARY has, and advice only ever names a plan that exists.
func TestProjectValidateForeignDeps(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".planning/milestones/v1.0-phases/01-setup/01-01-PLAN.md":    plan("wave: 1", autoTask),
		".planning/milestones/v1.0-phases/01-setup/01-01-SUMMARY.md": passed,
		".planning/phases/03-auth/03-02-PLAN.md":                     plan("wave: 1", autoTask),
		".planning/phases/03-auth/03-auth-02-SUMMARY.md":             passed,
		".planning/phases/03-auth/03-03-PLAN.md":                     plan("wave: 1", autoTask),
		".planning/phases/05-ui/05-01-PLAN.md":                       plan("wave: 1", autoTask),
		".planning/phases/05-ui/05-02-ui-PLAN.md":                    plan("depends_on:\n  - 03-02\n  - 3-3\n  - 01-01\n  - 03-09\n  - 04-07\n  - 07-01\n  - 05-ui-01", autoTask),
	})
	proj, err := LoadProject(root)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := proj.FindPhase("5")
	if err != nil {
		t.Fatal(err)
	}
	if got := ph.Plan("05-02-ui").DependsOn; !reflect.DeepEqual(got, []string{"03-02", "3-3", "01-01", "03-09", "04-07", "07-01", "05-01"}) {
		t.Errorf("DependsOn = %q", got)
	}
	var got []string
	for _, d := range proj.Validate(ph) {
		got = append(got, d.String())
	}
	p := ".planning/phases/05-ui/05-02-ui-PLAN.md"
	want := []string{
		p + ":4: warning: depends_on names 3-3 (.planning/phases/03-auth/03-03-PLAN.md), which is not done yet; hive runs this phase once it is (fix: run phase 3 first)",
		p + ":6: error: depends_on names 03-09, which is no plan of phase 3 (looked in .planning/phases and .planning/milestones) (fix: replace 03-09 with 03-02, the closest plan id of phase 3)",
		p + ":7: error: depends_on names 04-07, which is no plan of phase 4 (looked in .planning/phases and .planning/milestones) (fix: remove 04-07 from depends_on)",
		p + ":8: error: depends_on names 07-01, a plan of a later phase, which runs after this one (fix: move this plan to a later phase, or remove the dependency)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for id, done := range map[string]bool{"03-02": true, "3-3": false, "01-01": true, "03-auth-02": true} {
		if ref, ok := proj.LookupPlan(id); !ok || ref.Done() != done {
			t.Errorf("LookupPlan(%s) = %+v, %v; want done %v", id, ref, ok, done)
		}
	}
	if _, ok := proj.LookupPlan("03-09"); ok {
		t.Error("LookupPlan(03-09) found a plan that does not exist")
	}
}

// Advice for an unknown plan of this phase names a likely typo only.
func TestUnknownDependencyAdvice(t *testing.T) {
	ph := phaseOf(t, map[string]string{
		"01-01-PLAN.md": plan("wave: 1", autoTask),
		"01-02-PLAN.md": plan("depends_on: [01-01-setup-db, abc]", autoTask),
	})
	matchDiags(t, Validate(ph), []wantDiag{
		{SeverityError, "01-02-PLAN.md", 2, "depends_on names unknown plan 01-01-setup-db", "remove 01-01-setup-db from depends_on"},
		{SeverityError, "01-02-PLAN.md", 2, "depends_on names unknown plan abc", "remove abc from depends_on"},
	})
}

// Older GSD wrote plan ids with the phase slug (01-analytics-01); they name
// the plan 01-01, and a plan id with a slug after the numbers is found by
// its numbers.
func TestSlugDependencies(t *testing.T) {
	ph := writePhase(t, t.TempDir(), "01-analytics", map[string]string{
		"01-01-events-PLAN.md": plan("wave: 1", autoTask),
		"01-02-PLAN.md":        plan("depends_on:\n  - 01-analytics-01", autoTask),
		"01-03-PLAN.md":        plan("depends_on: [\"01-02\", 1]", autoTask),
	})
	if got := ph.Plan("01-02").DependsOn; !reflect.DeepEqual(got, []string{"01-01-events"}) {
		t.Errorf("01-02 DependsOn = %q", got)
	}
	if got := ph.Plan("01-03").DependsOn; !reflect.DeepEqual(got, []string{"01-02", "01-01-events"}) {
		t.Errorf("01-03 DependsOn = %q", got)
	}
	if ds := Validate(ph); HasErrors(ds) {
		t.Errorf("errors: %s", diagList(ds))
	}
	if w := ph.Plan("01-03").ComputedWave; w != 3 {
		t.Errorf("01-03 wave %d, want 3", w)
	}
}
