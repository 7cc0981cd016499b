package plan

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitKeyLinkRef(t *testing.T) {
	for _, tt := range []struct{ ref, file, symbol string }{
		{"src/app.js (handleSubmit)", "src/app.js", "handleSubmit"},
		{"api.ts#fetchUser", "api.ts", "fetchUser"},
		{"src/lib/db.ts:getUser", "src/lib/db.ts", "getUser"},
		{"src/lib/db.ts::getUser()", "src/lib/db.ts", "getUser"},
		{"src/app.js(handleSubmit)", "src/app.js", "handleSubmit"},
		{"handleSubmit() in src/app.js", "src/app.js", "handleSubmit"},
		{"`src/components/Form.tsx` (onSubmit handler)", "src/components/Form.tsx", "onSubmit"},
		{"src/app.ts (main entry)", "src/app.ts", ""},
		{"src/app.ts:42", "src/app.ts", ""},
		{"app/(auth)/login/page.tsx", "app/(auth)/login/page.tsx", ""},
		{"src/store.ts → useCart.addItem", "src/store.ts", "useCart.addItem"},
		{"Dockerfile", "Dockerfile", ""},
		{".env", ".env", ""},
		{"/Users/me/proj/src/a.ts", "/Users/me/proj/src/a.ts", ""},
		{"../other/x.go (Run)", "../other/x.go", "Run"},
		{`C:\work\x.ts:main`, `C:\work\x.ts`, "main"},
		// No file: prose, code and routes are not paths.
		{"trackEvent mutation", "", ""},
		{"dailyViewsAggregate.insert()", "", ""},
		{"router.push", "", ""},
		{"POST /api/users", "", ""},
		{"/api/auth/login", "", ""},
		{"/auth/.well-known/jwks.json", "", ""},
		{"/home/dev/app/src/a.ts (run)", "/home/dev/app/src/a.ts", "run"},
		{"https://api.example.com/v1", "", ""},
		{"", "", ""},
	} {
		file, sym := SplitKeyLinkRef(tt.ref)
		if file != tt.file || sym != tt.symbol {
			t.Errorf("SplitKeyLinkRef(%q) = %q, %q; want %q, %q", tt.ref, file, sym, tt.file, tt.symbol)
		}
	}
}

// Paths in task <files>, artifacts and key links are checked like
// files_modified, with their lines; a key link's symbol or prose is never
// taken for a path, and a target outside the repository (which hive never
// reads) is a warning.
func TestValidatePlanPaths(t *testing.T) {
	front := `wave: 1
must_haves:
  artifacts:
    - path: src/form.ts
    - path: /etc/app.conf
  key_links:
    - from: "src/form.ts (handleSubmit)"
      to: "api.ts#fetchUser"
    - from: trackEvent mutation
      to: POST /api/events
    - from: "../shared/util.ts (debounce)"
      to: src/form.ts
    - from: src/settings.ts
      to: ~/.config/app/settings.json`
	body := "<tasks>\n<task type=\"auto\"><name>a</name><files>src/form.ts, ~/.ssh/config</files></task>\n</tasks>\n"
	ph := phaseOf(t, map[string]string{"01-01-PLAN.md": plan(front, body)})
	matchDiags(t, Validate(ph), []wantDiag{
		{SeverityError, "01-01-PLAN.md", 6, `must_haves.artifacts: path "/etc/app.conf" is absolute`, "inside the repository"},
		{SeverityError, "01-01-PLAN.md", 12, `must_haves.key_links from: path "../shared/util.ts" leaves the repository`, "inside the repository"},
		{SeverityWarning, "01-01-PLAN.md", 14, `must_haves.key_links to: path "~/.config/app/settings.json" is in a home directory, outside the repository; hive never reads it, so this link's target goes unchecked`, "leave it if the code really reaches outside"},
		{SeverityError, "01-01-PLAN.md", 18, `task 1 <files>: path "~/.ssh/config" is in a home directory`, "inside the repository"},
	})
}

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
		"01-01-PLAN.md":    plan(front, autoTask),
		"01-01-SUMMARY.md": "# Done\n\n## Self-Check: PASSED\n",
		"01-02-PLAN.md":    plan(front, autoTask), // not done: nothing to check yet
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
