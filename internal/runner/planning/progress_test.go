package planning

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/tracking"
)

// projectProgress counts the whole project for STATE.md's progress keys:
// the other phases from their folders (a plan is done by its passing
// SUMMARY, also when its PLAN.md is gone), this one as the run has it.
func TestProjectProgress(t *testing.T) {
	root := t.TempDir()
	const planText = "---\nwave: 1\n---\n<objective>x</objective>\n<tasks><task type=\"auto\"><name>t</name></task></tasks>\n"
	const passed = "# Summary\n\n## Self-Check: PASSED\n"
	for name, text := range map[string]string{
		"01-core/01-01-PLAN.md":    planText,
		"01-core/01-01-SUMMARY.md": passed,
		"01-core/01-02-SUMMARY.md": passed, // its PLAN.md cleaned away
		"02-api/02-01-PLAN.md":     planText,
		"02-api/02-02-PLAN.md":     planText,
		"03-ui/03-01-PLAN.md":      planText,
	} {
		path := filepath.Join(root, ".planning", "phases", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ph, err := load.Phase(root, ".planning/phases/02-api")
	if err != nil {
		t.Fatal(err)
	}
	got := projectProgress(root, ph, []tracking.Plan{{ID: "02-01", Done: true}, {ID: "02-02"}})
	if want := (tracking.Progress{Plans: 5, DonePlans: 3, Phases: 3, DonePhases: 1}); got != want {
		t.Errorf("projectProgress = %+v, want %+v", got, want)
	}
	if got := projectProgress(t.TempDir(), ph, nil); got != (tracking.Progress{}) {
		t.Errorf("a folder without .planning: %+v, want nothing", got)
	}
}
