package parse_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/plan/validate"
)

// The hostile-plans corpus: inputs an attacker (or a confused agent) could
// put in a repository. None may panic; paths that leave the repository are
// refused with a diagnostic naming the file, the line and the fix. Time is
// not asserted, but the inputs are sized so that the test stays fast.

// hostileInputs generates the corpus; each is parsed as a PLAN and as a
// SUMMARY.
func hostileInputs() map[string][]byte {
	fm := "---\nphase: 01-core\nplan: 01\nwave: 1\nfiles_modified: [a.go]\n---\n"
	big := func(n int, unit string) string { return strings.Repeat(unit, n/len(unit)) }
	in := map[string][]byte{
		// 50 MB of ordinary plan text: many tasks, long bodies.
		"50MB": []byte(fm + "<objective>x</objective>\n<tasks>\n" + big(50<<20, "<task type=\"auto\"><name>n</name><files>a.go</files><action>do `x` $(y) ${z}\n</action></task>\n") + "</tasks>\n"),
		// One 10 MB line, in the frontmatter and in the body.
		"10MB line in frontmatter": []byte("---\nphase: " + big(10<<20, "a") + "\n---\n<objective>x</objective>"),
		"10MB line in body":        []byte(fm + "<objective>" + big(10<<20, "b") + "</objective>"),
		"10MB line without tags":   []byte(fm + big(10<<20, "<")),
		// 10k nested tags, closed and unclosed, and 10k nested task elements.
		"10k nested tags":            []byte(fm + strings.Repeat("<objective><context>", 5000) + strings.Repeat("</context></objective>", 5000)),
		"10k nested tasks":           []byte(fm + "<tasks>" + strings.Repeat("<task type=\"auto\"><name>n</name>", 10000) + strings.Repeat("</task>", 10000) + "</tasks>"),
		"10k unclosed tasks":         []byte(fm + "<tasks>" + strings.Repeat("<task>", 10000)),
		"10k nested fences":          []byte(fm + strings.Repeat("```\n~~~~\n", 10000)),
		"10k markdown task headings": []byte(fm + "## Tasks\n" + strings.Repeat("### Task 1\n**Files:** a\n", 10000)),
		// Deep YAML: flow sequences, block mappings, anchors that expand.
		"10k nested yaml flow":    []byte("---\nfiles_modified: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n---\n"),
		"10k nested yaml block":   []byte("---\nmust_haves:\n" + nestedYAML(10000) + "---\n"),
		"yaml billion laughs":     []byte("---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nfiles_modified: *f\n---\n"),
		"yaml alias to itself":    []byte("---\na: &a [*a]\nfiles_modified: *a\n---\n"),
		"10k depends_on entries":  []byte("---\ndepends_on: [" + strings.Repeat("01-01, ", 10000) + "]\n---\n"),
		"10k files_modified dups": []byte("---\nfiles_modified: [" + strings.Repeat("../x, ", 10000) + "]\n---\n"),
		// NUL and other control bytes everywhere.
		"NUL bytes":         bytes.ReplaceAll([]byte(fm+"<objective>a\x00b</objective>\n<tasks><task type=\"auto\x00\"><name>\x00</name><files>a\x00.go</files></task></tasks>"), []byte("a"), []byte("a\x00")),
		"NUL in yaml":       []byte("---\nfiles_modified: [\"a\\0b\", \"\\x00\"]\nplan: \"\\0\"\n---\n"),
		"only NULs":         make([]byte, 1<<20),
		"invalid UTF-8":     []byte(fm + "<objective>\xff\xfe\xc3\x28</objective><task type=\"\xff\"><name>\xc3</name></task>"),
		"BOM and CR":        []byte("\uFEFF---\r\nwave: 1\r\n---\r\n<tasks>\r<task>\r</task>"),
		"control bytes":     []byte(fm + "<objective>\x1b[31mred\x1b[0m\x07\x08\x7f</objective>"),
		"huge numbers":      []byte("---\nwave: 99999999999999999999999999\nplan: 1e400\nphase: -0\n---\n"),
		"frontmatter only ": []byte("---\n" + strings.Repeat("k: v\n", 100000) + "---\n"),
	}
	in["shell metacharacters everywhere"] = []byte(shellPlan("/tmp/pwned-hive-plan"))
	return in
}

func nestedYAML(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i+1))
		b.WriteString("k:\n")
	}
	return b.String()
}

// shellPlan puts command substitutions, backticks and other shell syntax in
// every field of a plan, each one touching marker if a shell ever ran it.
func shellPlan(marker string) string {
	inj := fmt.Sprintf("$(touch %[1]s) `touch %[1]s` ${IFS}; touch %[1]s && echo | tee %[1]s > %[1]s '", marker)
	return fmt.Sprintf(`---
phase: "01-core %[1]s"
plan: "01 %[1]s"
type: execute
wave: 1
depends_on: ["01-00 %[1]s"]
files_modified: ["src/$(touch %[2]s).go", "src/`+"`touch %[2]s`"+`.go", "src/a;b|c&d>e<f.go"]
autonomous: true
requirements: ["%[1]s"]
user_setup: "%[1]s"
must_haves:
  truths: ["%[1]s"]
  artifacts: [{path: "src/$(touch %[2]s)", provides: "%[1]s", contains: "%[1]s"}]
  key_links: [{from: "%[1]s", to: "%[1]s", via: "%[1]s", pattern: "%[1]s"}]
x-custom: "%[1]s"
---

# %[1]s

<objective>
%[1]s
</objective>

<context>
@%[1]s
</context>

<tasks>
<task type="auto" tdd="%[1]s">
  <name>Task 1: %[1]s</name>
  <files>src/$(touch %[2]s).go</files>
  <read_first>%[1]s</read_first>
  <action>%[1]s</action>
  <verify><automated>%[1]s</automated></verify>
  <acceptance_criteria>%[1]s</acceptance_criteria>
  <done>%[1]s</done>
</task>
</tasks>
`, inj, marker)
}

func TestHostileInputsDoNotPanic(t *testing.T) {
	for name, data := range hostileInputs() {
		t.Run(name, func(t *testing.T) {
			p, ds := parse.Plan(".planning/phases/01-core/01-01-PLAN.md", data)
			checkDiags(t, ".planning/phases/01-core/01-01-PLAN.md", lineCount(data), ds)
			if p != nil {
				ph := &plan.Phase{Plans: []*plan.Plan{p, {ID: "01-02", Path: "x", DependsOn: p.DependsOn, FilesModified: p.FilesModified, Lines: map[string]int{}}}}
				validate.Phase(ph)
				_ = load.CheckRepoPaths(t.TempDir(), ph)
			}
			s, ds := parse.Summary(".planning/phases/01-core/01-01-SUMMARY.md", data)
			checkDiags(t, ".planning/phases/01-core/01-01-SUMMARY.md", lineCount(data), ds)
			if s == nil {
				t.Fatal("nil summary")
			}
		})
	}
}

// TestShellTextIsKeptVerbatim: shell syntax is text to hive. It is kept as
// written (no expansion, no quoting removed), and no shell ran it.
func TestShellTextIsKeptVerbatim(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	p, ds := parse.Plan(".planning/phases/01-core/01-01-PLAN.md", []byte(shellPlan(marker)))
	if p == nil {
		t.Fatalf("not parsed: %v", ds)
	}
	inj := fmt.Sprintf("$(touch %[1]s) `touch %[1]s`", marker)
	for what, v := range map[string]string{"objective": p.Objective, "task name": p.Tasks[0].Name, "action": p.Tasks[0].Action, "phase": p.Phase, "user_setup": fmt.Sprint(p.UserSetup)} {
		if !strings.Contains(v, inj) {
			t.Errorf("%s = %q, want the shell text verbatim", what, v)
		}
	}
	if !strings.HasPrefix(inj, strings.TrimSuffix(p.Name, "…")) {
		t.Errorf("name = %q, want the start of the shell text", p.Name)
	}
	if p.FilesModified[0] != "src/$(touch "+marker+").go" {
		t.Errorf("files_modified[0] = %q", p.FilesModified[0])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("parsing a plan ran a shell")
	}
}
