package load_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// For a finished plan, lint notes key links whose file is gone or lacks
// the symbol; prose and bare names found nowhere are left alone.
func TestDoneKeyLinks(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "form.ts"), []byte("export function handleSubmit() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	front := `wave: 1
must_haves:
  key_links:
    - from: "src/form.ts (handleSubmit)"
      to: "src/api.ts#fetchUser"
    - from: "src/form.ts:validate"
      to: "client.ts (get)"
    - from: form submit
      to: the API`
	ph := writePhase(t, root, "01-x", map[string]string{
		"01-01-PLAN.md":    plantest.Plan(front, plantest.AutoTask),
		"01-01-SUMMARY.md": "# Done\n\n## Self-Check: PASSED\n",
		"01-02-PLAN.md":    plantest.Plan(front, plantest.AutoTask), // not done: nothing to check yet
	})
	var got []string
	for _, d := range ph.Diagnostics {
		if strings.Contains(d.Message, "key link") {
			got = append(got, fmt.Sprintf("%s:%d: %s: %s", path.Base(d.File), d.Line, d.Severity, d.Message))
		}
	}
	want := []string{
		`01-01-PLAN.md:5: note: key link to "src/api.ts#fetchUser": src/api.ts does not exist, although the plan is done`,
		`01-01-PLAN.md:7: note: key link from "src/form.ts:validate": src/form.ts does not mention validate, although the plan is done`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
