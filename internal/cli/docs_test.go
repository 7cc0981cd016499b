package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/hivectl/hive/internal/config"
)

// repoRoot is the repository's root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// readDoc returns the text of a documentation file, named relative to the
// repository's root (README.md, docs/plans.md).
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docSection returns the text of the "## title" section of a documentation
// file, up to the next "## " heading.
func docSection(t *testing.T, name, title string) string {
	t.Helper()
	s := readDoc(t, name)
	start := strings.Index(s, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("%s has no section %q", name, title)
	}
	s = s[start+1:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return s
}

var (
	markdownBlockRE = regexp.MustCompile("(?s)```markdown\n(.*?)\n```\n")
	frontmatterRE   = regexp.MustCompile(`(?m)^(phase|plan): *"?([0-9A-Za-z.-]+)"?$`)
)

// The complete plan in docs/plans.md's "Write your own plans" passes hive
// lint without an error, a warning or a note, saved where the section says
// to save it: the documented format cannot drift from what hive accepts.
func TestDocsPlanExample(t *testing.T) {
	section := docSection(t, "docs/plans.md", "Write your own plans")
	m := markdownBlockRE.FindStringSubmatch(section)
	if m == nil || !strings.HasPrefix(m[1], "---\n") {
		t.Fatal("the section has no ```markdown block holding a plan")
	}
	example := m[1] + "\n"
	keys := map[string]string{}
	for _, kv := range frontmatterRE.FindAllStringSubmatch(example, -1) {
		if _, seen := keys[kv[1]]; !seen {
			keys[kv[1]] = kv[2]
		}
	}
	phaseDir, planNum := keys["phase"], keys["plan"]
	if phaseDir == "" || planNum == "" {
		t.Fatalf("the example's frontmatter lacks phase or plan: %q", keys)
	}
	number, _, _ := strings.Cut(phaseDir, "-")
	rel := ".planning/phases/" + phaseDir + "/" + number + "-" + planNum + "-PLAN.md"
	if !strings.Contains(section, "`"+rel+"`") {
		t.Errorf("the section does not tell to save the example as %s", rel)
	}

	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"lint", "--repo", dir}, strings.NewReader(""), &stdout, &stderr)
	if want := "1 phase(s), 1 plan(s): 0 error(s), 0 warning(s), 0 note(s)"; code != 0 || !strings.Contains(stdout.String(), want) {
		t.Errorf("hive lint of docs/plans.md's example: exit %d, want 0 and %q:\n%s%s", code, want, stdout.String(), stderr.String())
	}
	for _, want := range []string{`type="auto"`, `type="tdd"`, `type="checkpoint:decision"`, `type="checkpoint:human-verify"`, "must_haves:", "depends_on:"} {
		if !strings.Contains(example, want) {
			t.Errorf("the example does not show %s", want)
		}
	}
}

// docs/configuration.md's "Configuration keys" explains every key of the
// file hive init writes, and no key that does not exist.
func TestDocsConfigKeys(t *testing.T) {
	section := docSection(t, "docs/configuration.md", "Configuration keys")
	// The defaults, with the keys a file holds only when they are set.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".planning", "config.json"), []byte(`{"budget": {"usd": 1, "tokens": 1, "plan_usd": 1}, "tools": ["go"],
 "loop_guard": {"warn_repeat": 3, "stop_repeat": 5, "max_calls": 9},
 "routing": {"evaluate": true, "confidence_floor": 60, "skip_proven": true, "proven_runs": 3, "proven_confidence": 63},
 "context": {"handoff_percent": 50, "handoff_tokens": 1, "window": 1, "notes_wait": "2m"},
 "notifications": {"public_url": "https://hive.example.com"},
 "commands": {"build": "make", "test": "make check"},
 "limits": {"on_limit": "stop"},
 "github": {"labels": {"bug": "bugfix"}},
 "backend": {"kind": "temporal", "temporal": {"address": "10.0.0.5:7233", "namespace": "team", "task_queue": "q", "remote": "origin"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var want []string
	var walk func(prefix string, obj map[string]any)
	walk = func(prefix string, obj map[string]any) {
		for k, v := range obj {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			// A role's entry under models, and the labels, are documented as a whole.
			if child, ok := v.(map[string]any); ok && prefix != "models" && p != "github.labels" {
				walk(p, child)
				continue
			}
			want = append(want, p)
		}
	}
	walk("", file)
	slices.Sort(want)
	documented := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, k := range regexp.MustCompile("`([a-z_.]+)`").FindAllStringSubmatch(first, -1) {
			documented[k[1]] = true
		}
	}
	for _, k := range want {
		if !documented[k] {
			t.Errorf("docs/configuration.md's Configuration keys lacks %s", k)
		}
		delete(documented, k)
	}
	for _, role := range []string{"models.executor", "models.verifier", "models.comb", "models.fallback"} {
		delete(documented, role) // roles without a default entry
	}
	for k := range documented {
		t.Errorf("docs/configuration.md's Configuration keys documents %s, which the config file does not have", k)
	}
}

// readmeMaxLines keeps the README what a newcomer reads in five minutes;
// the manual is docs/.
const readmeMaxLines = 300

// shellCommands returns the commands of the ```sh blocks of a Markdown
// text: each line with its comment and a leading "$ " removed.
func shellCommands(text string) []string {
	var cmds []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in:
			cmd, _, _ := strings.Cut(line, "#")
			if cmd = strings.TrimSpace(strings.TrimPrefix(cmd, "$ ")); cmd != "" {
				cmds = append(cmds, cmd)
			}
		}
	}
	return cmds
}

// The README stays short and keeps its two set-up commands, and CI runs
// the test command its Development section gives.
func TestReadmeForNewcomers(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines: keep it under %d (what a newcomer needs), and move the rest into docs/", n, readmeMaxLines)
	}
	if cmds := shellCommands(readme); !slices.Contains(cmds, "go run ./cmd/hive demo") {
		t.Errorf("README.md's shell blocks do not give the demo's command `go run ./cmd/hive demo`: %q", cmds)
	}
	dev := shellCommands(docSection(t, "README.md", "Development"))
	if len(dev) == 0 || dev[0] != "make test" {
		t.Fatalf("README.md's Development section does not start with `make test`: %q", dev)
	}
	ci := readDoc(t, ".ci/run")
	if !slices.Contains(strings.Split(ci, "\n"), dev[0]) {
		t.Errorf(".ci/run does not run the README's test command %q:\n%s", dev[0], ci)
	}
}

var (
	// A Markdown link or image: [text](target) or ![alt](target), the
	// target without a title.
	markdownLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpanRE     = regexp.MustCompile("`[^`]*`")
	headingRE      = regexp.MustCompile(`^(#{1,6}) +(.+?) *#*$`)
)

// markdownLines calls f with each line of text outside fenced code blocks,
// inline code removed (a link there is an example, not a link).
func markdownLines(text string, f func(line string)) {
	outsideFences(text, func(line string) { f(codeSpanRE.ReplaceAllString(line, "")) })
}

// outsideFences calls f with each line of text outside its fenced code
// blocks (``` or ~~~), the fences' own lines left out.
func outsideFences(text string, f func(line string)) {
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		if trimmed := strings.TrimLeft(line, " "); strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence == "" {
			f(line)
		}
	}
}

// headingAnchors returns the anchors GitHub gives a Markdown text's
// headings: lower case, punctuation dropped, spaces as hyphens, and -1,
// -2… on repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	outsideFences(text, func(line string) {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[2])
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors
}

// docFiles returns README.md and every Markdown file under docs/, relative
// to the repository's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repoRoot, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %q: is the test running in internal/cli?", files)
	}
	return files
}

// brokenLinks returns the relative links of the Markdown file name (its
// text given) whose file or heading does not exist; read reads another
// file by its name relative to the repository's root.
func brokenLinks(name, text string, read func(string) ([]byte, error), exists func(string) bool) []string {
	var broken []string
	markdownLines(text, func(line string) {
		for _, m := range markdownLinkRE.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := name
			if file != "" {
				resolved = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
				if !exists(resolved) {
					broken = append(broken, target+": no such file "+resolved)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(resolved, ".md") {
				continue
			}
			targetText := text
			if file != "" {
				data, err := read(resolved)
				if err != nil {
					broken = append(broken, target+": cannot read "+resolved)
					continue
				}
				targetText = string(data)
			}
			if !headingAnchors(targetText)[anchor] {
				broken = append(broken, target+": "+resolved+" has no heading #"+anchor)
			}
		}
	})
	return broken
}

// No relative link of the README or of docs/ (the generated reference
// included) points at a file or a heading that does not exist.
func TestDocsLinks(t *testing.T) {
	read := func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(name)))
		return err == nil
	}
	links := 0
	for _, name := range docFiles(t) {
		text := readDoc(t, name)
		markdownLines(text, func(line string) { links += len(markdownLinkRE.FindAllString(line, -1)) })
		for _, b := range brokenLinks(name, text, read, exists) {
			t.Errorf("%s: broken link %s", name, b)
		}
	}
	if links < 100 {
		t.Errorf("found only %d links in README.md and docs/: is the link pattern right?", links)
	}
}

// The link check finds what it is for: a missing file, a missing heading
// (of another file or of the same one), and leaves alone web links and
// links in code.
func TestDocsLinksCheck(t *testing.T) {
	files := map[string]string{
		"docs/a.md": "# Page A\n\n## `hive run \"OBJ\" [--yes]`\n\n## Setup\n\n## Setup\n",
		"docs/b.md": "",
	}
	read := func(name string) ([]byte, error) {
		s, ok := files[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return []byte(s), nil
	}
	exists := func(name string) bool { _, ok := files[name]; return ok || name == "docs/img" }
	text := strings.Join([]string{
		"[ok](a.md) [ok](a.md#page-a) [ok](a.md#hive-run-obj---yes) [ok](a.md#setup-1) ![ok](img) [ok](#here)",
		"[web](https://example.com/x.md) `[code](gone.md)`",
		"```", "[fenced](gone.md)", "```",
		"[gone](c.md) [gone](a.md#nowhere) [gone](a.md#setup-2) [gone](#nowhere)",
		"## Here",
	}, "\n")
	got := brokenLinks("docs/b.md", text, read, exists)
	want := []string{
		"c.md: no such file docs/c.md",
		"a.md#nowhere: docs/a.md has no heading #nowhere",
		"a.md#setup-2: docs/a.md has no heading #setup-2",
		"#nowhere: docs/b.md has no heading #nowhere",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brokenLinks =\n%q\nwant\n%q", got, want)
	}
}

// docs/README.md, the index, links every page of docs/.
func TestDocsIndex(t *testing.T) {
	index := readDoc(t, "docs/README.md")
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		name := filepath.Base(p)
		if name != "README.md" && !strings.Contains(index, "]("+name+")") {
			t.Errorf("docs/README.md does not link %s", name)
		}
	}
}
