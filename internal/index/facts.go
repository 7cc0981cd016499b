package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var goPackageMain = regexp.MustCompile(`(?m)^package\s+main\b`)

// entryPoints finds where the project's programs start.
func entryPoints(root string, files []string, ix *Index) {
	var found []EntryPoint
	seen := map[string]bool{}
	add := func(p, kind string) {
		if p == "" || seen[p] {
			return
		}
		seen[p] = true
		found = append(found, EntryPoint{Path: clip(p, maxPath), Kind: kind})
	}
	goReads := 0
	for _, f := range files {
		base, dir := path.Base(f), path.Dir(f)
		switch {
		case strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go"):
			// A main package is read for: main.go anywhere, and any Go
			// file under a cmd/ folder, where Go puts its commands.
			if seen[dir] || goReads >= maxSourceReads || base != "main.go" && !underDir(f, "cmd") {
				continue
			}
			goReads++
			if head, err := readHead(filepath.Join(root, filepath.FromSlash(f)), sourceHead); err == nil && goPackageMain.Match(head) {
				add(dir, "go main package")
			}
		case base == "__main__.py":
			add(dir, "python -m")
		case base == "manage.py" && strings.Count(f, "/") <= 1:
			add(f, "django manage.py")
		case (base == "main.py" || base == "app.py") && (dir == "." || dir == "src"):
			add(f, "python script")
		case f == "src/main.rs" || strings.HasSuffix(f, "/src/main.rs"):
			add(f, "rust binary")
		case strings.HasSuffix(f, ".rs") && path.Base(dir) == "bin" && (dir == "src/bin" || strings.HasSuffix(dir, "/src/bin")):
			add(f, "rust binary")
		case base == "index.html" && strings.Count(f, "/") <= 1:
			add(f, "web page")
		case dir == "bin" && path.Ext(base) != ".md":
			add(f, "bin script")
		case base == "pyproject.toml" && strings.Count(f, "/") <= 2:
			data, err := readHead(filepath.Join(root, filepath.FromSlash(f)), maxManifestSize)
			if err != nil {
				continue
			}
			for _, s := range pyprojectScripts(data) {
				add(s[1], "pyproject script "+clip(s[0], maxName))
			}
		case base == "package.json" && strings.Count(f, "/") <= 2:
			data, err := readHead(filepath.Join(root, filepath.FromSlash(f)), maxManifestSize)
			if err != nil {
				continue
			}
			var pkg packageJSON
			if json.Unmarshal(data, &pkg) != nil {
				continue // frameworks notes it
			}
			if pkg.Main != "" {
				add(path.Join(dir, pkg.Main), "package.json main")
			}
			bins := pkg.bins()
			names := make([]string, 0, len(bins))
			for name := range bins {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				kind := "package.json bin"
				if name != "" {
					kind += " " + clip(name, maxName)
				}
				add(path.Join(dir, bins[name]), kind)
			}
		}
	}
	// The shallowest first: a repository's own commands before its
	// packages' ones.
	sort.SliceStable(found, func(i, j int) bool {
		di, dj := depth(found[i].Path), depth(found[j].Path)
		if di != dj {
			return di < dj
		}
		return found[i].Path < found[j].Path
	})
	if len(found) > maxEntryPoints {
		found, ix.MoreEntries = found[:maxEntryPoints], len(found)-maxEntryPoints
	}
	ix.EntryPoints = append(ix.EntryPoints, found...)
}

func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// underDir says whether one of p's folders is named name.
func underDir(p, name string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if d == name {
			return true
		}
	}
	return false
}

// pyprojectScripts returns the [project.scripts] (or Poetry's
// [tool.poetry.scripts]) of a pyproject.toml: each a name and its
// "module:function".
func pyprojectScripts(data []byte) [][2]string {
	var out [][2]string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := tomlSection.FindStringSubmatch(line); m != nil {
			in = m[1] == "project.scripts" || m[1] == "tool.poetry.scripts"
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !in || !ok {
			continue
		}
		name, value = strings.Trim(strings.TrimSpace(name), `"'`), strings.Trim(strings.TrimSpace(value), `"'`)
		if name != "" && value != "" {
			out = append(out, [2]string{name, value})
		}
	}
	return out
}

var scriptTag = []byte("<script")

// frontend decides has_frontend: a frontend framework in a manifest, a
// component file (.vue, .svelte, .jsx, .tsx), or an index.html that loads
// scripts (a page without a framework is still a frontend to check).
func frontend(root string, files []string, ix *Index) {
	for _, f := range ix.Frameworks {
		if f.Frontend {
			ix.HasFrontend, ix.FrontendReason = true, fmt.Sprintf("%s in %s", f.Name, f.Manifest)
			return
		}
	}
	components := 0
	for _, f := range files {
		switch path.Ext(f) {
		case ".vue", ".svelte", ".jsx", ".tsx":
			components++
		}
	}
	if components > 0 {
		ix.HasFrontend, ix.FrontendReason = true, plural(components, ".vue/.svelte/.jsx/.tsx file")
		return
	}
	pages := 0
	for _, f := range files {
		if path.Base(f) != "index.html" || pages == 5 {
			continue
		}
		pages++
		if head, err := readHead(filepath.Join(root, filepath.FromSlash(f)), 64<<10); err == nil && bytes.Contains(bytes.ToLower(head), scriptTag) {
			ix.HasFrontend, ix.FrontendReason = true, f+" loads scripts"
			return
		}
	}
}

// jsTestFile matches JavaScript and TypeScript test files: x.test.ts,
// x.spec.jsx and the like.
var jsTestFile = regexp.MustCompile(`\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// isTestFile says whether f is a test file by its name and place: code
// under a test folder counts whatever its name (mocha's test/*.js, Rust's
// tests/*.rs, a tests/run.sh), as the shell Hive counted the folders.
func isTestFile(f string) bool {
	base := path.Base(f)
	if _, code := extLanguages[path.Ext(base)]; code {
		for _, d := range []string{"test", "tests", "spec", "__tests__"} {
			if underDir(f, d) {
				return true
			}
		}
	}
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py"):
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
	case jsTestFile.MatchString(base):
		return true
	case strings.HasSuffix(base, "_spec.rb"), strings.HasSuffix(base, "_test.rb"):
		return true
	case strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.java"), strings.HasSuffix(base, "Test.kt"),
		strings.HasSuffix(base, "Tests.swift"), strings.HasSuffix(base, "Test.swift"), strings.HasSuffix(base, "Tests.cs"),
		strings.HasSuffix(base, "_test.dart"), strings.HasSuffix(base, "_test.exs"):
		return true
	}
	return false
}

var rustTestAttr = regexp.MustCompile(`#\[(cfg\()?test\)?\]`)

// tests decides has_tests: test files by their names, and Rust sources
// that hold #[test] functions (Rust's unit tests live beside the code).
func tests(root string, files []string, ix *Index) {
	reads := 0
	for _, f := range files {
		switch {
		case isTestFile(f):
			ix.TestFiles++
		case strings.HasSuffix(f, ".rs") && reads < maxSourceReads:
			reads++
			if head, err := readHead(filepath.Join(root, filepath.FromSlash(f)), 256<<10); err == nil && rustTestAttr.Match(head) {
				ix.TestFiles++
			}
		}
	}
	switch {
	case ix.TestFiles > 0:
		ix.HasTests, ix.TestsReason = true, plural(ix.TestFiles, "test file")
	case ix.TestCommand == "make test":
		// A test target its authors wrote is a test suite, whatever its
		// files are called (a C project's tests/run.sh); the test command
		// a go.mod alone implies is not.
		ix.HasTests, ix.TestsReason = true, "the Makefile has a test target"
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
