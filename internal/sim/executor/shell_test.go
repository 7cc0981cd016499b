package executor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport/simtest"
)

// TestPlanContentNeverReachesAShell runs the sim agent over a plan whose
// objective, task names, files, actions and verify commands hold command
// substitutions, backticks and other shell syntax, each of which would
// create marker if any shell interpreted it. The plan completes, the
// marker never appears, and the odd file names are written literally.
func TestPlanContentNeverReachesAShell(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	inj := fmt.Sprintf("$(touch %[1]s) `touch %[1]s` ; touch %[1]s | touch %[1]s && touch %[1]s", marker)
	dir := simtest.NewRepo(t)
	// File names hold shell syntax too; a shell running them in the
	// repository would leave "pwned" there.
	odd := []string{"src/$(touch${IFS}pwned).go", "src/`touch${IFS}pwned`.txt", "src/semi;colon&amp|pipe>x.md"}
	rel := simtest.WritePlan(t, dir, "01-01",
		simtest.Task{Name: "Task 1: " + inj, Files: odd[:2], Extra: "  <read_first>" + inj + "</read_first>\n  <acceptance_criteria>" + inj + "</acceptance_criteria>\n"},
		simtest.Task{Name: "Task 2: `touch " + marker + "`", Files: odd[2:]},
	)
	// The objective and verification too.
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "Plan 01-01 of the test phase.", inj, 1)
	text = strings.ReplaceAll(text, "go test ./...", inj)
	simtest.WriteFile(t, dir, rel, text)
	simtest.Git(t, dir, "commit", "-q", "-am", "docs: hostile plan")

	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel))
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("exit %d, texts %q", code, texts)
	}
	for _, m := range []string{marker, filepath.Join(dir, "pwned"), filepath.Join(dir, "src", "pwned")} {
		if _, err := os.Stat(m); err == nil {
			t.Fatalf("plan content was run by a shell: %s exists", m)
		}
	}
	for _, f := range odd {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s was not written literally: %v", f, err)
		}
	}
	// A subject is cut to its length limit, which a long temporary path
	// reaches: what a shell would have replaced is the syntax itself.
	if log := simtest.Git(t, dir, "log", "--format=%s"); !strings.Contains(log, "feat(01-01): $(touch ") || !strings.Contains(log, "feat(01-01): `touch ") {
		t.Errorf("commit subjects lost the literal text:\n%s", log)
	}
}
