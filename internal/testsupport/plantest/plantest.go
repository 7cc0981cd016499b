package plantest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
)

// Dir is the phase folder of the plans the tests write in memory.
const Dir = ".planning/phases/01-x"

// Plan builds a PLAN.md from frontmatter lines and a body.
func Plan(front, body string) string {
	return "---\n" + front + "\n---\n" + body
}

// AutoTask is a plan body of one auto task.
const AutoTask = "<tasks>\n<task type=\"auto\"><name>Do it</name><action>x</action></task>\n</tasks>\n"

// Passed is a SUMMARY whose Self-Check passed: its plan is done.
const Passed = "---\nphase: 03-auth\n---\n# Summary\n\nDone.\n\n## Self-Check: PASSED\n"

// WriteFiles writes files (repository-relative names) under root.
func WriteFiles(t *testing.T, root string, files map[string]string) {
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

// WritePhase writes files into root/.planning/phases/<phaseDir>/ and returns
// the folder, repository-relative, for load.Phase.
func WritePhase(t *testing.T, root, phaseDir string, files map[string]string) string {
	t.Helper()
	abs := filepath.Join(root, ".planning", "phases", phaseDir)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(abs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return plan.PhasesDir + "/" + phaseDir
}

// CheckFixEnd fails on a fix that ends in ")": String wraps the fix in
// parentheses, and "(fix: … (e.g. src/app.ts))" reads badly.
func CheckFixEnd(t *testing.T, d plan.Diagnostic) {
	t.Helper()
	if strings.HasSuffix(d.Fix, ")") {
		t.Errorf("a fix that ends in \")\" prints \"))\": %s", d)
	}
}

// DiagList lists diagnostics one a line, as the tests print them.
func DiagList(ds []plan.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}

// Diag describes a diagnostic a test expects: the file's base name in
// Dir, its line, and substrings of its message and fix. A test's tables
// list them without field names, through a type of its own defined as
// Diag (go vet refuses such literals of another package's type).
type Diag struct {
	Sev  plan.Severity
	File string
	Line int
	Msg  string
	Fix  string
}

// MatchDiags checks that every fix in got is well formed, that each of want
// is among got, and that got has as many errors as want.
func MatchDiags[W ~struct {
	Sev  plan.Severity
	File string
	Line int
	Msg  string
	Fix  string
}](t *testing.T, got []plan.Diagnostic, want []W) {
	t.Helper()
	for _, d := range got {
		CheckFixEnd(t, d)
	}
	errs := 0
	for _, w := range want {
		w := Diag(w)
		if w.Sev == plan.SeverityError {
			errs++
		}
		found := false
		for _, d := range got {
			if d.Severity == w.Sev && d.File == Dir+"/"+w.File && d.Line == w.Line &&
				strings.Contains(d.Message, w.Msg) && strings.Contains(d.Fix, w.Fix) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("missing %s %s:%d %q (fix %q); got:\n%s", w.Sev, w.File, w.Line, w.Msg, w.Fix, DiagList(got))
		}
	}
	n := 0
	for _, d := range got {
		if d.Severity == plan.SeverityError {
			n++
		}
	}
	if n != errs {
		t.Errorf("%d errors, want %d:\n%s", n, errs, DiagList(got))
	}
}
