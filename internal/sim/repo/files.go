package repo

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/planpath"
)

// CheckPath turns a path from a plan into a slash-separated repository path
// the sim may write, or says why not. Plans are untrusted: the path must stay
// inside the repository, must not be in .git, must not be a directory or a
// symlink, and no existing ancestor may be a symlink that leads outside.
func CheckPath(root, realRoot, p string) (string, error) {
	rel, err := planpath.SafeRelPath(p)
	if err != nil {
		return "", err
	}
	if first, _, _ := strings.Cut(rel, "/"); first == ".git" {
		return "", fmt.Errorf("path %q is inside .git", p)
	}
	if strings.HasSuffix(strings.TrimSpace(p), "/") {
		return "", fmt.Errorf("path %q names a directory", p)
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	// MkdirAll would follow a symlinked ancestor, so resolve the deepest one
	// that exists and require it to resolve inside the repository.
	anc := filepath.Dir(abs)
	for {
		if _, err := os.Lstat(anc); err == nil || anc == root {
			break
		}
		anc = filepath.Dir(anc)
	}
	real, err := filepath.EvalSymlinks(anc)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("path %q leads outside the repository through a symlink", p)
	}
	if fi, err := os.Lstat(abs); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("path %q is a symlink; the sim does not write through links", p)
		case fi.IsDir():
			return "", fmt.Errorf("path %q is a directory", p)
		}
	}
	return rel, nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// TouchFile creates rel (with parent directories and a small header for its
// kind) when missing and adds the marker line for ref ("01-02/3"). It reports
// whether the file was created. Markers are idempotent so a task redone after
// a crash does not add its line twice.
func TouchFile(root, rel, ref, note string) (bool, error) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	old, err := os.ReadFile(abs)
	created := errors.Is(err, os.ErrNotExist)
	if err != nil && !created {
		return false, fmt.Errorf("read %s: %w", rel, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return false, fmt.Errorf("create directory for %s: %w", rel, err)
	}
	var data []byte
	if strings.EqualFold(path.Ext(rel), ".json") {
		data = jsonWithTask(old, ref)
	} else {
		data = old
		if created {
			data = []byte(header(root, rel))
		}
		marker := fmt.Sprintf("hive-sim %s:", ref)
		if !strings.Contains(string(data), marker) {
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			data = append(data, comment(rel, marker+" "+OneLine(note, 100))+"\n"...)
		}
	}
	if err := os.WriteFile(abs, data, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	return created, nil
}

// jsonWithTask keeps an existing JSON object's keys and lists the tasks that
// touched the file under "hive-sim"; anything else is replaced by a fresh
// object, because the file must stay valid JSON.
func jsonWithTask(old []byte, ref string) []byte {
	obj := map[string]any{}
	if err := json.Unmarshal(old, &obj); err != nil || obj == nil {
		obj = map[string]any{}
	}
	var tasks []string
	if list, ok := obj["hive-sim"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				tasks = append(tasks, s)
			}
		}
	}
	if !slices.Contains(tasks, ref) {
		tasks = append(tasks, ref)
	}
	obj["hive-sim"] = tasks
	b, _ := json.MarshalIndent(obj, "", "  ")
	return append(b, '\n')
}

var goPackage = regexp.MustCompile(`(?m)^package\s+([A-Za-z_][A-Za-z0-9_]*)`)

// header is the content of a new file: enough that it looks like its kind
// and, for Go, still compiles.
func header(root, rel string) string {
	base := path.Base(rel)
	switch ext := strings.ToLower(path.Ext(rel)); ext {
	case ".go":
		return fmt.Sprintf("// %s: created by the hive sim agent.\n\npackage %s\n\n", base, GoPackageFor(root, rel))
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs":
		return fmt.Sprintf("// %s: created by the hive sim agent.\nexport {};\n\n", base)
	case ".py":
		return fmt.Sprintf("\"\"\"%s: created by the hive sim agent.\"\"\"\n\n", base)
	case ".md", ".markdown":
		title := strings.TrimSuffix(base, path.Ext(base))
		return "# " + strings.NewReplacer("-", " ", "_", " ").Replace(title) + "\n\n"
	case ".sh":
		return "#!/bin/sh\n# " + base + ": created by the hive sim agent.\n"
	default:
		return ""
	}
}

// GoPackageFor reuses the package clause of a sibling .go file, else names
// the package after its directory ("main" at the root or for main.go).
func GoPackageFor(root, rel string) string {
	dir := path.Dir(rel)
	entries, _ := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if name := packageClause(filepath.Join(root, filepath.FromSlash(dir), e.Name())); name != "" {
			return strings.TrimSuffix(name, "_test")
		}
	}
	if path.Base(rel) == "main.go" || path.Base(dir) == "cmd" {
		return "main"
	}
	base := path.Base(dir)
	if dir == "." {
		// A root without Go files: a library package named after the
		// module ("package main" without a main func breaks go build).
		base = moduleName(root)
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return -1
	}, base)
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "pkg" + name
	}
	return name
}

// moduleName is the last element of the module path in root's go.mod,
// "hivesim" when there is none.
func moduleName(root string) string {
	data, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	for _, line := range strings.Split(string(data), "\n") {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return path.Base(strings.Trim(strings.TrimSpace(mod), `"`))
		}
	}
	return "hivesim"
}

func packageClause(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := goPackage.FindStringSubmatch(sc.Text()); m != nil {
			return m[1]
		}
	}
	return ""
}

// comment renders text as a one-line comment in rel's language.
func comment(rel, text string) string {
	// A note must not close the comment it sits in.
	text = strings.NewReplacer("-->", "->", "*/", "* /").Replace(text)
	switch strings.ToLower(path.Ext(rel)) {
	case ".go", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".java", ".c", ".h", ".cc", ".cpp", ".rs", ".swift", ".kt", ".scala", ".proto":
		return "// " + text
	case ".md", ".markdown", ".html", ".htm", ".xml", ".svg", ".vue":
		return "<!-- " + text + " -->"
	case ".css", ".scss", ".less":
		return "/* " + text + " */"
	case ".sql", ".lua", ".hs":
		return "-- " + text
	default: // shell, Python, YAML, TOML, Makefile, text
		return "# " + text
	}
}

// OneLine collapses whitespace and cuts s to at most n bytes on a rune
// boundary, for commit subjects and marker lines.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// AddMustHaves makes a file the plan's must_haves name hold what they ask
// for, as a real executor's code would: the text an artifact must contain,
// and for a key link from this file, text its pattern matches. Both go in
// comments, so the file stays valid for its kind (JSON files are left alone).
func AddMustHaves(root, rel string, p *plan.Plan) error {
	if strings.EqualFold(path.Ext(rel), ".json") {
		return nil
	}
	var want []string
	for _, a := range p.MustHaves.Artifacts {
		if path.Clean(a.Path) == rel && a.Contains != "" {
			want = append(want, a.Contains)
		}
	}
	for _, k := range p.MustHaves.KeyLinks {
		if path.Clean(k.From) == rel && k.Pattern != "" {
			want = append(want, literalOf(k.Pattern))
		}
	}
	if len(want) == 0 {
		return nil
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	data, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	for _, w := range want {
		if strings.Contains(string(data), w) || strings.ContainsAny(w, "\n\r") {
			continue
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, comment(rel, "must-have: "+w)+"\n"...)
	}
	return os.WriteFile(abs, data, 0o644)
}

// literalOf turns a simple regular expression (escaped punctuation, no
// alternation) into text it matches: `cli\.Run\(` → `cli.Run(`.
func literalOf(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\\' && i+1 < len(pattern) {
			i++
			c = pattern[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}
