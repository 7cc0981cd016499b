package parse_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/testsupport/plantest"
)

// These frontmatters are refused by strict YAML but read every day by GSD's
// line-based reader; hive must read them the same way, with a note.
func TestParsePlanGSDFrontmatter(t *testing.T) {
	const front = `phase: 04-dashboard
plan: 02
type: execute
wave: 2
depends_on: [04-01]
files_modified:
  - src/layout/grid.ts
  - src/styles/theme.css
autonomous: true
must_haves:
  truths:
    - "Rows wrap at the breakpoint"
  artifacts:
    - path: src/layout/grid.ts
      provides: row layout
      contains: "buildRowLayout("
  key_links:
    - from: src/layout/grid.ts
      to: src/styles/theme.css
      via: CSS custom properties
      pattern: --background|colors:
    - from: "src/layout/grid.ts"
      to: "src/layout/row.ts"
      pattern: "buildRowLayout\("
    - from: src/layout/grid.ts
      to: src/util/text.ts
      pattern: "\s+gap"`
	p, ds := parse.Plan(plantest.Dir+"/04-02-PLAN.md", []byte(plantest.Plan(front, plantest.AutoTask)))
	if p == nil {
		t.Fatalf("plan not read: %s", plantest.DiagList(ds))
	}
	plantest.MatchDiags(t, ds, []wantDiag{{plan.SeverityNote, "04-02-PLAN.md", 22, "not valid YAML", "single quotes"}})
	if p.Wave != 2 || !p.Autonomous || !reflect.DeepEqual(p.DependsOn, []string{"04-01"}) ||
		!reflect.DeepEqual(p.FilesModified, []string{"src/layout/grid.ts", "src/styles/theme.css"}) {
		t.Errorf("plan = wave %d autonomous %v deps %q files %q", p.Wave, p.Autonomous, p.DependsOn, p.FilesModified)
	}
	if got := p.Lines["files_modified[1]"]; got != 9 {
		t.Errorf("files_modified[1] at line %d, want 9", got)
	}
	want := []plan.KeyLink{
		{From: "src/layout/grid.ts", To: "src/styles/theme.css", Via: "CSS custom properties", Pattern: "--background|colors:"},
		{From: "src/layout/grid.ts", To: "src/layout/row.ts", Pattern: `buildRowLayout\(`},
		{From: "src/layout/grid.ts", To: "src/util/text.ts", Pattern: `\s+gap`},
	}
	if !reflect.DeepEqual(p.MustHaves.KeyLinks, want) {
		t.Errorf("key links = %#v\nwant %#v", p.MustHaves.KeyLinks, want)
	}
	if a := p.MustHaves.Artifacts; len(a) != 1 || a[0].Contains != "buildRowLayout(" || a[0].Provides != "row layout" {
		t.Errorf("artifacts = %#v", a)
	}
	if !reflect.DeepEqual(p.MustHaves.Truths, []string{"Rows wrap at the breakpoint"}) {
		t.Errorf("truths = %q", p.MustHaves.Truths)
	}
}

// A frontmatter neither YAML nor GSD can read is still an error, and the
// message says where the line reading failed too.
func TestParsePlanUnreadableFrontmatter(t *testing.T) {
	_, ds := parse.Plan(plantest.Dir+"/01-01-PLAN.md", []byte(plantest.Plan("phase: 01\nwave: \"\\s\"\njust some words", plantest.AutoTask)))
	plantest.MatchDiags(t, ds, []wantDiag{{plan.SeverityError, "01-01-PLAN.md", 3, "invalid YAML frontmatter", "check the YAML"}})
	if len(ds) == 0 || !strings.Contains(ds[0].Message, "line 4 cannot be read either") {
		t.Errorf("got %s", plantest.DiagList(ds))
	}
}

// A SUMMARY gets the same reading: its key files feed the spot-checks.
func TestParseSummaryGSDFrontmatter(t *testing.T) {
	s, ds := parse.Summary(plantest.Dir+"/01-01-SUMMARY.md", []byte("---\nphase: 01-x\nplan: 01\nsubsystem: ui\npatterns-established:\n  - \"rows: \\d+ per page\"\nkey-files:\n  created: [src/a.ts]\n---\n# Done\n\n## Self-Check: PASSED\n"))
	plantest.MatchDiags(t, ds, []wantDiag{{plan.SeverityNote, "01-01-SUMMARY.md", 6, "not valid YAML", ""}})
	if s.Subsystem != "ui" || !reflect.DeepEqual(s.KeyFilesCreated, []string{"src/a.ts"}) || s.SelfCheck != "PASSED" ||
		!reflect.DeepEqual(s.PatternsEstablished, []string{`rows: \d+ per page`}) {
		t.Errorf("summary = %+v", s)
	}
}
