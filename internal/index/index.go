package index

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/testrun"
)

// Version numbers the index's format and the rules that fill it: a cached
// index of another version is built again, so a better rule reaches
// repositories whose commit has not changed.
const Version = 1

// Caps keep the index small whatever the repository: each list keeps its
// largest or first entries and counts the rest.
const (
	maxLanguages   = 8
	maxDirs        = 12
	maxSubdirs     = 6
	maxFrameworks  = 12
	maxEntryPoints = 10
	maxNotes       = 4
	maxName        = 48 // characters of a file or folder name shown
	maxPath        = 96 // characters of a path shown
)

// Index is what hive knows about a repository without asking a model.
type Index struct {
	Version int `json:"version"`
	// Tree is the git tree the index describes (HEAD's, for the folder
	// indexed); empty when the work tree has changes or no commit.
	Tree string `json:"tree,omitempty"`
	// Dirty says the work tree had uncommitted changes: the index
	// describes the files as they are, and was not cached.
	Dirty bool `json:"dirty,omitempty"`
	Files int  `json:"files"`

	Languages     []Count `json:"languages"`
	MoreLanguages int     `json:"more_languages,omitempty"`

	// Dirs are the top-level folders with their file counts; RootFiles
	// are the files beside them.
	Dirs      []Dir `json:"dirs"`
	MoreDirs  int   `json:"more_dirs,omitempty"`
	RootFiles int   `json:"root_files"`

	// The commands are the ones hive runs (testrun's detection), written
	// as a shell would show them; empty when none was found.
	TestCommand    string `json:"test_command,omitempty"`
	BuildCommand   string `json:"build_command,omitempty"`
	PackageManager string `json:"package_manager,omitempty"`

	Frameworks     []Framework  `json:"frameworks"`
	MoreFrameworks int          `json:"more_frameworks,omitempty"`
	EntryPoints    []EntryPoint `json:"entry_points"`
	MoreEntries    int          `json:"more_entry_points,omitempty"`

	// HasFrontend and HasTests are the workflow conditions has_frontend
	// and has_tests; the reasons say what showed them, for the run's log.
	HasFrontend    bool   `json:"has_frontend"`
	FrontendReason string `json:"frontend_reason,omitempty"`
	HasTests       bool   `json:"has_tests"`
	TestFiles      int    `json:"test_files"`
	TestsReason    string `json:"tests_reason,omitempty"`

	// Notes are problems met on the way (a manifest that does not parse).
	Notes []string `json:"notes,omitempty"`
}

// Count is a name with a number of files.
type Count struct {
	Name  string `json:"name"`
	Files int    `json:"files"`
}

// Dir is a top-level folder: its files, all depths, and its largest
// subfolders.
type Dir struct {
	Path     string  `json:"path"`
	Files    int     `json:"files"`
	Sub      []Count `json:"sub,omitempty"`
	MoreSubs int     `json:"more_subs,omitempty"`
}

// Framework is a framework or notable library a manifest depends on.
type Framework struct {
	Name     string `json:"name"`
	Manifest string `json:"manifest"` // the file that names it
	Frontend bool   `json:"frontend,omitempty"`
}

// EntryPoint is where a program starts: a Go main package, package.json's
// main or bin, a Python __main__.py, a Rust binary, a web page.
type EntryPoint struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

// Build indexes the repository folder root (its top level or a folder
// inside it). A clean work tree's index is cached under the repository's
// git directory by its tree hash and read back from there; a dirty one is
// built each time (see cacheKey).
func Build(root string) (Index, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Index{}, err
	}
	common, err := git(abs, "rev-parse", "--git-common-dir")
	if err != nil {
		return Index{}, fmt.Errorf("index %s: not a git repository (run git init there, or name the repository with --repo): %v", abs, err)
	}
	common = strings.TrimSpace(common)
	if !filepath.IsAbs(common) {
		common = filepath.Join(abs, common)
	}
	key, dirty := cacheKey(abs)
	var cache string
	if key != "" {
		cache = filepath.Join(common, "hive", "index-"+key+".json")
		if ix, ok := readCache(cache, key); ok {
			return ix, nil
		}
	}
	files, err := listFiles(abs, dirty)
	if err != nil {
		return Index{}, err
	}
	ix := build(abs, files)
	ix.Tree, ix.Dirty = key, dirty
	if cache != "" {
		// A cache that cannot be written costs the next call a rebuild,
		// nothing more: the index itself is good.
		_ = writeCache(cache, ix)
	}
	return ix, nil
}

// listFiles names the files git sees in root, as paths relative to it with
// forward slashes: tracked ones and untracked ones not ignored (a new file
// in a dirty tree counts), less those deleted from the work tree.
func listFiles(root string, dirty bool) ([]string, error) {
	out, err := git(root, "-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("index %s: list its files: %v", root, err)
	}
	files := split0(out)
	if dirty {
		gone, err := git(root, "-c", "core.quotepath=off", "ls-files", "-z", "--deleted")
		if err == nil && gone != "" {
			deleted := map[string]bool{}
			for _, f := range split0(gone) {
				deleted[f] = true
			}
			kept := files[:0]
			for _, f := range files {
				if !deleted[f] {
					kept = append(kept, f)
				}
			}
			files = kept
		}
	}
	// An unmerged file is listed once per stage.
	sort.Strings(files)
	return compact(files), nil
}

func split0(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func compact(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// notOwn are folders whose files are not the project's own code: vendored
// dependencies, test data and fixtures (which hold other projects'
// manifests), examples. They count in the tree, not in the languages,
// frameworks, entry points or facts.
var notOwn = map[string]bool{
	"node_modules": true, "vendor": true, "third_party": true, "third-party": true,
	"testdata": true, "fixtures": true, "__fixtures__": true,
	"examples": true, "example": true, "_examples": true,
}

// own says whether p is the project's own file (see notOwn); hidden folders
// (.github, .hive) hold tooling, not the product.
func own(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if notOwn[d] || strings.HasPrefix(d, ".") {
			return false
		}
	}
	return true
}

// build reads the index from the file list and the files themselves.
func build(root string, files []string) Index {
	ix := Index{
		Version:     Version,
		Files:       len(files),
		Languages:   []Count{},
		Dirs:        []Dir{},
		Frameworks:  []Framework{},
		EntryPoints: []EntryPoint{},
	}
	var ownFiles []string
	for _, f := range files {
		if own(f) {
			ownFiles = append(ownFiles, f)
		}
	}
	ix.Languages, ix.MoreLanguages = languages(ownFiles)
	ix.Dirs, ix.MoreDirs, ix.RootFiles = tree(files)
	commands(root, &ix)
	frameworks(root, ownFiles, &ix)
	entryPoints(root, ownFiles, &ix)
	frontend(root, ownFiles, &ix)
	tests(root, ownFiles, &ix)
	return ix
}

// commands records the test and build commands as testrun detects them,
// so what the index says is what the pipeline runs.
func commands(root string, ix *Index) {
	c, err := testrun.Detect(root)
	switch {
	case err == nil:
		ix.TestCommand = c.String()
	case !errors.Is(err, testrun.ErrNoTests):
		ix.note(err.Error())
	}
	if c, ok := testrun.DetectBuild(root); ok {
		ix.BuildCommand = c.String()
	}
	if exists(filepath.Join(root, "package.json")) {
		ix.PackageManager = testrun.PackageManager(root)
	}
}

func (ix *Index) note(s string) {
	if len(ix.Notes) < maxNotes {
		ix.Notes = append(ix.Notes, clip(s, 200))
	}
}

// extLanguages names the language of a file extension. Data and prose
// (JSON, YAML, Markdown) are no language: they would crowd out the code.
var extLanguages = map[string]string{
	".go": "Go", ".py": "Python", ".pyi": "Python",
	".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
	".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "TypeScript",
	".vue": "Vue", ".svelte": "Svelte", ".astro": "Astro",
	".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala",
	".swift": "Swift", ".m": "Objective-C", ".mm": "Objective-C",
	".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++",
	".cs": "C#", ".fs": "F#", ".rb": "Ruby", ".php": "PHP", ".pl": "Perl", ".lua": "Lua",
	".dart": "Dart", ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell",
	".ml": "OCaml", ".clj": "Clojure", ".r": "R", ".jl": "Julia", ".zig": "Zig", ".nim": "Nim",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ps1": "PowerShell",
	".sql": "SQL", ".proto": "Protocol Buffers", ".tf": "Terraform",
	".html": "HTML", ".htm": "HTML", ".css": "CSS", ".scss": "SCSS", ".sass": "SCSS", ".less": "Less",
}

// languages counts files by language, the most files first.
func languages(files []string) ([]Count, int) {
	n := map[string]int{}
	for _, f := range files {
		if lang, ok := extLanguages[strings.ToLower(path.Ext(f))]; ok && !strings.HasSuffix(f, ".min.js") {
			n[lang]++
		}
	}
	counts := sortCounts(n)
	if len(counts) > maxLanguages {
		return counts[:maxLanguages], len(counts) - maxLanguages
	}
	return counts, 0
}

// sortCounts orders counts by files, most first, then by name.
func sortCounts(n map[string]int) []Count {
	out := []Count{}
	for name, files := range n {
		out = append(out, Count{Name: name, Files: files})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Files != out[j].Files {
			return out[i].Files > out[j].Files
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// tree summarises the top-level folders: the largest maxDirs, in name
// order, each with its largest subfolders.
func tree(files []string) ([]Dir, int, int) {
	top := map[string]int{}
	subs := map[string]map[string]int{}
	rootFiles := 0
	for _, f := range files {
		first, rest, ok := strings.Cut(f, "/")
		if !ok {
			rootFiles++
			continue
		}
		top[first]++
		if second, _, ok := strings.Cut(rest, "/"); ok {
			if subs[first] == nil {
				subs[first] = map[string]int{}
			}
			subs[first][second]++
		}
	}
	counts := sortCounts(top)
	more := 0
	if len(counts) > maxDirs {
		counts, more = counts[:maxDirs], len(counts)-maxDirs
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i].Name < counts[j].Name })
	dirs := []Dir{}
	for _, c := range counts {
		d := Dir{Path: clip(c.Name, maxName), Files: c.Files, Sub: sortCounts(subs[c.Name])}
		if len(d.Sub) > maxSubdirs {
			d.Sub, d.MoreSubs = d.Sub[:maxSubdirs], len(d.Sub)-maxSubdirs
		}
		for i := range d.Sub {
			d.Sub[i].Name = clip(d.Sub[i].Name, maxName)
		}
		if len(d.Sub) == 0 {
			d.Sub = nil
		}
		dirs = append(dirs, d)
	}
	return dirs, more, rootFiles
}

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
