package plan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			p, ds := ParsePlan(".planning/phases/01-core/01-01-PLAN.md", data)
			checkDiags(t, ".planning/phases/01-core/01-01-PLAN.md", lineCount(data), ds)
			if p != nil {
				ph := &Phase{Plans: []*Plan{p, {ID: "01-02", Path: "x", DependsOn: p.DependsOn, FilesModified: p.FilesModified, Lines: map[string]int{}}}}
				Validate(ph)
				_ = CheckRepoPaths(t.TempDir(), ph)
			}
			s, ds := ParseSummary(".planning/phases/01-core/01-01-SUMMARY.md", data)
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
	p, ds := ParsePlan(".planning/phases/01-core/01-01-PLAN.md", []byte(shellPlan(marker)))
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

// hostileRepo is a repository whose phase lists paths that leave it: by
// "..", absolute, home, drive letter, backslashes, and through symbolic
// links (to an absolute outside folder, up the tree, dangling, in a loop,
// and a chain of two links).
//
// selfCheck is its plan's SUMMARY's verdict: PASSED makes the plan done.
func hostileRepo(t *testing.T, selfCheck string) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	mk := func(rel, content string) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("src/ok.go", "package src\n")
	link(outside, "out")
	link("..", "up")
	link("src", "inner")
	link("../../nowhere/at/all", "dangling")
	link("loop2", "loop1")
	link("loop1", "loop2")
	link("up", "chain")
	link("inner/../out", "sneaky")
	link(filepath.Join(root, "src"), "absinner")
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(".git/hooks", "hooks")
	dir := ".planning/phases/01-core/"
	mk(dir+"01-01-PLAN.md", `---
phase: 01-core
plan: 01
wave: 1
files_modified:
  - src/ok.go
  - inner/ok.go
  - absinner/new.go
  - src/new/deeper/file.go
  - ../../etc/passwd
  - /etc/shadow
  - ~/.ssh/authorized_keys
  - C:\Windows\system.ini
  - src\..\..\x
  - out/evil.sh
  - up/escape.txt
  - dangling
  - dangling/x
  - loop1/x
  - chain/x
  - sneaky/x
  - .git/hooks/pre-commit
  - .Git/hooks/post-merge
  - hooks/post-checkout
autonomous: true
---

<objective>Hostile paths.</objective>
<tasks><task type="auto"><name>t</name><files>src/ok.go</files><action>a</action></task></tasks>
`)
	mk(dir+"01-01-SUMMARY.md", `---
phase: 01-core
plan: 01
key-files:
  created:
    - src/ok.go
    - ../outside.txt
    - out/x
  modified: [/abs/path, "up/y", inner/ok.go]
---

# Summary

## Self-Check: `+selfCheck+`
`)
	return root, outside
}

// hostileDiagnostics is what LoadPhase and Validate say of hostileRepo's
// phase, by severity: message to the whole line.
func hostileDiagnostics(t *testing.T, selfCheck string) (errs, warnings map[string]string, ds []Diagnostic) {
	t.Helper()
	root, _ := hostileRepo(t, selfCheck)
	ph, err := LoadPhase(root, ".planning/phases/01-core")
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ph.Diagnostics, Validate(ph)...)
	errs, warnings = map[string]string{}, map[string]string{}
	for _, d := range ds {
		switch d.Severity {
		case SeverityError:
			errs[d.Message] = d.String()
		case SeverityWarning:
			warnings[d.Message] = d.String()
		default:
			continue
		}
		if d.Line == 0 || d.Fix == "" || d.File == "" {
			t.Errorf("%s without file, line or fix: %s", d.Severity, d)
		}
	}
	return errs, warnings, ds
}

// hostilePlanPaths are the hostile paths of hostileRepo's plan.
var hostilePlanPaths = []string{
	`files_modified: path "../../etc/passwd" leaves the repository`,
	`files_modified: path "/etc/shadow" is absolute`,
	`files_modified: path "~/.ssh/authorized_keys" is in a home directory`,
	`files_modified: path "C:\\Windows\\system.ini" is absolute (drive letter)`,
	`files_modified: path "src\\..\\..\\x" leaves the repository`,
	`files_modified: path "out/evil.sh" goes through the symbolic link out, which points outside the repository`,
	`files_modified: path "up/escape.txt" goes through the symbolic link up`,
	`files_modified: path "dangling" goes through the symbolic link dangling`,
	`files_modified: path "dangling/x" goes through the symbolic link dangling`,
	`files_modified: path "loop1/x": too many symbolic links`,
	`files_modified: path "chain/x" goes through the symbolic link up`,
	`files_modified: path "sneaky/x" goes through the symbolic link out`,
	`files_modified: path ".git/hooks/pre-commit" is inside .git`,
	`files_modified: path ".Git/hooks/post-merge" is inside .git`,
	`files_modified: path "hooks/post-checkout" goes through the symbolic link hooks, which points into .git`,
}

// hostileKeyFiles are the hostile key files of its SUMMARY: what a
// finished plan says it touched, which hive never reads, so warnings.
var hostileKeyFiles = []string{
	`key-files.created: path "../outside.txt" leaves the repository`,
	`key-files.created: path "out/x" goes through the symbolic link out`,
	`key-files.modified: path "/abs/path" is absolute`,
	`key-files.modified: path "up/y" goes through the symbolic link up`,
}

// takeAll removes from got, for each of want, the one message it begins,
// and reports those it lacks.
func takeAll(t *testing.T, what string, got map[string]string, want []string) {
	t.Helper()
	for _, w := range want {
		found := false
		for m := range got {
			if strings.HasPrefix(m, w) {
				found = true
				delete(got, m)
				break
			}
		}
		if !found {
			t.Errorf("no %s %q", what, w)
		}
	}
}

// A plan still to run whose paths leave the repository cannot run: each
// is an error, with its file, line and fix.
func TestHostilePathsRejected(t *testing.T) {
	errs, warnings, ds := hostileDiagnostics(t, "FAILED")
	takeAll(t, "error", errs, hostilePlanPaths)
	for _, d := range errs {
		t.Errorf("unexpected error: %s", d)
	}
	takeAll(t, "warning", warnings, hostileKeyFiles)
	for _, ok := range []string{"src/ok.go", "inner/ok.go", "absinner/new.go", "src/new/deeper/file.go"} {
		for _, d := range ds {
			if strings.Contains(d.Message, `"`+ok+`"`) {
				t.Errorf("a path inside the repository was flagged: %s", d)
			}
		}
	}
}

// A plan that is done never runs again: its paths that leave the
// repository (a finished plan that changed the user's ~/.claude, say) are
// warnings that say why, and the phase still runs.
func TestHostilePathsOfADonePlan(t *testing.T) {
	errs, warnings, _ := hostileDiagnostics(t, "PASSED")
	for _, d := range errs {
		t.Errorf("an error for a done plan: %s", d)
	}
	takeAll(t, "warning", warnings, hostileKeyFiles)
	for _, w := range hostilePlanPaths {
		found := false
		for m := range warnings {
			found = found || (strings.HasPrefix(m, w) && strings.HasSuffix(m, "this plan is done (01-01-SUMMARY.md), so hive never runs it"))
		}
		if !found {
			t.Errorf("no warning %q saying the plan is done", w)
		}
	}
}

func TestResolveInRepo(t *testing.T) {
	root, _ := hostileRepo(t, "PASSED")
	real, _ := filepath.EvalSymlinks(root)
	for p, want := range map[string]string{
		"src/ok.go":         "src/ok.go",
		"inner/ok.go":       "src/ok.go",
		"inner/../README":   "README", // cleaned before it is resolved: never through the link
		"absinner/a/b.go":   "src/a/b.go",
		"src/ok.go/nothing": "src/ok.go/nothing",
	} {
		got, err := ResolveInRepo(root, p)
		if err != nil || got != filepath.Join(real, filepath.FromSlash(want)) {
			t.Errorf("ResolveInRepo(%q) = %q, %v; want %s", p, got, err, want)
		}
	}
	for _, p := range []string{"out", "out/x", "up", "dangling", "loop1", "chain/x", "sneaky", "../x", "/etc", "", "hooks/x", ".git/x"} {
		if got, err := ResolveInRepo(root, p); err == nil {
			t.Errorf("ResolveInRepo(%q) = %q, want an error", p, got)
		}
	}
}

func FuzzSafeRelPath(f *testing.F) {
	for _, s := range []string{"src/a.go", "../x", `..\x`, "/etc", "C:x", "~u", ".git/x", ".GIT./x", "a/./b/../c", "a\x00", " a ", "a//b", `\\srv\s`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := SafeRelPath(p)
		if err != nil {
			if c != "" {
				t.Fatalf("%q with an error", c)
			}
			return
		}
		switch {
		case c == "" || c == "." || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "~"):
			t.Fatalf("SafeRelPath(%q) = %q", p, c)
		case c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../") || strings.HasSuffix(c, "/.."):
			t.Fatalf("SafeRelPath(%q) = %q leaves the repository", p, c)
		case strings.ContainsAny(c, "\x00\\"):
			t.Fatalf("SafeRelPath(%q) = %q", p, c)
		case len(c) >= 2 && c[1] == ':' && isASCIILetter(c[0]):
			t.Fatalf("SafeRelPath(%q) = %q has a drive letter", p, c)
		case inGitDir(c):
			t.Fatalf("SafeRelPath(%q) = %q is in .git", p, c)
		}
		if again, err := SafeRelPath(c); err != nil || again != c {
			t.Fatalf("not idempotent: %q → %q → %q, %v", p, c, again, err)
		}
	})
}
