package plan

import (
	"reflect"
	"strings"
	"testing"
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
	p, ds := ParsePlan(dir+"/04-02-PLAN.md", []byte(plan(front, autoTask)))
	if p == nil {
		t.Fatalf("plan not read: %s", diagList(ds))
	}
	matchDiags(t, ds, []wantDiag{{SeverityNote, "04-02-PLAN.md", 22, "not valid YAML", "single quotes"}})
	if p.Wave != 2 || !p.Autonomous || !reflect.DeepEqual(p.DependsOn, []string{"04-01"}) ||
		!reflect.DeepEqual(p.FilesModified, []string{"src/layout/grid.ts", "src/styles/theme.css"}) {
		t.Errorf("plan = wave %d autonomous %v deps %q files %q", p.Wave, p.Autonomous, p.DependsOn, p.FilesModified)
	}
	if got := p.Lines["files_modified[1]"]; got != 9 {
		t.Errorf("files_modified[1] at line %d, want 9", got)
	}
	want := []KeyLink{
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

func TestGSDFrontmatterShapes(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]any
	}{
		{"verbatim escapes", `a: "x\s"` + "\nb: 'it''s'\nc: \"tab\\there\"",
			map[string]any{"a": `x\s`, "b": "it's", "c": "tab\there"}},
		{"colon in an unquoted value", "pattern: a: b\nwave:3\nn: 4 # comment",
			map[string]any{"pattern": "a: b", "wave": 3, "n": 4}},
		{"list at the key's indentation", "x: \"\\d\"\nfiles:\n- a.ts\n- b.ts\nauto: false",
			map[string]any{"x": `\d`, "files": []any{"a.ts", "b.ts"}, "auto": false}},
		{"inline list with a bad escape", `x: "\s"` + "\ndeps: [\"01-01\", '01-02', 01-03]",
			map[string]any{"x": `\s`, "deps": []any{"01-01", "01-02", "01-03"}}},
		{"inline list split as GSD does", `deps: ["a\s", b]`,
			map[string]any{"deps": []any{`a\s`, "b"}}},
		{"flow list over lines", "x: \"\\s\"\nfiles: [a.ts,\n  b.ts]",
			map[string]any{"x": `\s`, "files": []any{"a.ts", "b.ts"}}},
		{"block text and folded text", "x: \"\\s\"\nnote: |\n  one\n    two\nsum: >\n  a\n  b",
			map[string]any{"x": `\s`, "note": "one\n  two", "sum": "a b"}},
		{"multi-line plain value", "x: \"\\s\"\nobjective: first part\n  second part",
			map[string]any{"x": `\s`, "objective": "first part second part"}},
		{"list of mappings", "x: \"\\s\"\nlinks:\n  - from: a.ts\n    to: b.ts\n  - Class::method\n  - - nested",
			map[string]any{"x": `\s`, "links": []any{map[string]any{"from": "a.ts", "to": "b.ts"}, "Class::method", []any{"nested"}}}},
		{"empty and null", "x: \"\\s\"\nempty:\nnone: ~",
			map[string]any{"x": `\s`, "empty": nil, "none": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, bad := gsdFrontmatter(tt.src)
			if n == nil {
				t.Fatalf("line %d not read", bad)
			}
			d := &document{budget: nodeBudget}
			if got := d.value(n, 0); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestGSDFrontmatterUnreadable(t *testing.T) {
	for _, tt := range []struct {
		src  string
		line int
	}{
		{"a: 1\nthis is prose\nb: 2", 2},
		{"a: [1, 2\nb: 3", 1},
		{"a:\n  b: 1\n c: 2", 3},
		{"- a\n- b", 1},
	} {
		if n, bad := gsdFrontmatter(tt.src); n != nil || bad != tt.line {
			t.Errorf("%q: got %v, line %d; want line %d", tt.src, n, bad, tt.line)
		}
	}
}

// A frontmatter neither YAML nor GSD can read is still an error, and the
// message says where the line reading failed too.
func TestParsePlanUnreadableFrontmatter(t *testing.T) {
	_, ds := ParsePlan(dir+"/01-01-PLAN.md", []byte(plan("phase: 01\nwave: \"\\s\"\njust some words", autoTask)))
	matchDiags(t, ds, []wantDiag{{SeverityError, "01-01-PLAN.md", 3, "invalid YAML frontmatter", "check the YAML"}})
	if len(ds) == 0 || !strings.Contains(ds[0].Message, "line 4 cannot be read either") {
		t.Errorf("got %s", diagList(ds))
	}
}

// A SUMMARY gets the same reading: its key files feed the spot-checks.
func TestParseSummaryGSDFrontmatter(t *testing.T) {
	s, ds := ParseSummary(dir+"/01-01-SUMMARY.md", []byte("---\nphase: 01-x\nplan: 01\nsubsystem: ui\npatterns-established:\n  - \"rows: \\d+ per page\"\nkey-files:\n  created: [src/a.ts]\n---\n# Done\n\n## Self-Check: PASSED\n"))
	matchDiags(t, ds, []wantDiag{{SeverityNote, "01-01-SUMMARY.md", 6, "not valid YAML", ""}})
	if s.Subsystem != "ui" || !reflect.DeepEqual(s.KeyFilesCreated, []string{"src/a.ts"}) || s.SelfCheck != "PASSED" ||
		!reflect.DeepEqual(s.PatternsEstablished, []string{`rows: \d+ per page`}) {
		t.Errorf("summary = %+v", s)
	}
}
