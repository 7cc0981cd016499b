package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitIn runs git in dir with an identity of its own, so commits work on a
// machine with no git configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=hive test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=hive test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// repo makes a git repository holding files, committed.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write(t, dir, files)
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "fixture")
	return dir
}

func mustBuild(t *testing.T, dir string) Index {
	t.Helper()
	ix, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := Render(ix); len(r) > MaxRendered {
		t.Errorf("Render is %d bytes, over %d", len(r), MaxRendered)
	}
	return ix
}

func frameworkNames(ix Index) []string {
	var out []string
	for _, f := range ix.Frameworks {
		out = append(out, f.Name)
	}
	return out
}

func entry(ix Index, path string) string {
	for _, e := range ix.EntryPoints {
		if e.Path == path {
			return e.Kind
		}
	}
	return ""
}

var goModule = map[string]string{
	"go.mod": `module example.com/svc

go 1.22

require (
	github.com/go-chi/chi/v5 v5.0.12
	github.com/spf13/cobra v1.8.0
	github.com/gin-gonic/gin v1.9.1 // indirect
)
`,
	"cmd/api/main.go":                 "// Command api serves.\npackage main\n\nfunc main() {}\n",
	"cmd/api/routes.go":               "package main\n",
	"internal/store/store.go":         "package store\n",
	"internal/store/store_test.go":    "package store\n",
	"internal/store/testdata/x.json":  "{}",
	"internal/web/testdata/page.html": "<script src=x.js></script>",
	"README.md":                       "# svc\n",
}

func TestGoModule(t *testing.T) {
	ix := mustBuild(t, repo(t, goModule))
	if ix.Files != 8 || ix.RootFiles != 2 || ix.Dirty || ix.Tree == "" {
		t.Errorf("files %d, root files %d, dirty %v, tree %q", ix.Files, ix.RootFiles, ix.Dirty, ix.Tree)
	}
	if !slices.Equal(ix.Languages, []Count{{"Go", 4}}) {
		t.Errorf("languages %v: want Go 4 (test data is not the project's code)", ix.Languages)
	}
	if ix.BuildCommand != "go build -o /dev/null ./..." || ix.TestCommand != "go test -v ./..." || ix.PackageManager != "" {
		t.Errorf("build %q, test %q, package manager %q", ix.BuildCommand, ix.TestCommand, ix.PackageManager)
	}
	if got := frameworkNames(ix); !slices.Equal(got, []string{"chi", "cobra"}) {
		t.Errorf("frameworks %v: want chi and cobra (gin is indirect)", got)
	}
	if k := entry(ix, "cmd/api"); k != "go main package" || len(ix.EntryPoints) != 1 {
		t.Errorf("entry points %v", ix.EntryPoints)
	}
	if !ix.HasTests || ix.TestFiles != 1 || ix.HasFrontend {
		t.Errorf("has tests %v (%d files), has frontend %v (%s): a page in testdata is no frontend", ix.HasTests, ix.TestFiles, ix.HasFrontend, ix.FrontendReason)
	}
	want := []Dir{{Path: "cmd", Files: 2, Sub: []Count{{"api", 2}}}, {Path: "internal", Files: 4, Sub: []Count{{"store", 3}, {"web", 1}}}}
	if got, _ := json.Marshal(ix.Dirs); string(got) != mustJSON(t, want) {
		t.Errorf("dirs %s, want %s", got, mustJSON(t, want))
	}
	r := Render(ix)
	for _, s := range []string{"Codebase index: 8 files (tree ", "Languages: Go 4\n", "  internal/ 4: store 3, web 1\n", "Build: go build -o /dev/null ./...\n",
		"Test: go test -v ./...\n", "Frameworks: go.mod: chi, cobra\n", "Entry points: cmd/api (go main package)\n", "Frontend: no\n", "Tests: yes (1 test file)\n"} {
		if !strings.Contains(r, s) {
			t.Errorf("Render lacks %q:\n%s", s, r)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPnpmVueApp(t *testing.T) {
	ix := mustBuild(t, repo(t, map[string]string{
		"package.json": `{"name": "shop", "scripts": {"dev": "vite", "build": "vite build", "test": "vitest run"},
  "dependencies": {"vue": "^3.4.0"}, "devDependencies": {"vite": "^5.0.0", "vitest": "^1.0.0", "@vitejs/plugin-vue": "^5.0.0"}}`,
		"pnpm-lock.yaml":                   "lockfileVersion: '9.0'\n",
		"index.html":                       `<div id="app"></div><script type="module" src="/src/main.ts"></script>`,
		"src/main.ts":                      "import { createApp } from 'vue'\n",
		"src/App.vue":                      "<template><h1>shop</h1></template>\n",
		"src/components/Cart.vue":          "<template/>\n",
		"src/components/Cart.spec.ts":      "test('cart', () => {})\n",
		"node_modules/vue/package.json":    `{"name": "vue", "main": "index.js"}`,
		"node_modules/vue/index.js":        "",
		"node_modules/vue/index.test.js":   "",
		"node_modules/react/package.json":  `{"name": "react"}`,
		"node_modules/react/cjs/react.jsx": "",
	}))
	if ix.BuildCommand != "pnpm run build" || ix.TestCommand != "pnpm test" || ix.PackageManager != "pnpm" {
		t.Errorf("build %q, test %q, package manager %q", ix.BuildCommand, ix.TestCommand, ix.PackageManager)
	}
	if got := frameworkNames(ix); !slices.Equal(got, []string{"vite", "vitest", "vue"}) {
		t.Errorf("frameworks %v", got)
	}
	if !ix.HasFrontend || ix.FrontendReason != "vue in package.json" {
		t.Errorf("has frontend %v (%s)", ix.HasFrontend, ix.FrontendReason)
	}
	if !ix.HasTests || ix.TestFiles != 1 {
		t.Errorf("has tests %v (%d files): node_modules' tests are not the project's", ix.HasTests, ix.TestFiles)
	}
	if entry(ix, "index.html") != "web page" || len(ix.EntryPoints) != 1 {
		t.Errorf("entry points %v", ix.EntryPoints)
	}
	if !slices.Equal(ix.Languages, []Count{{"TypeScript", 2}, {"Vue", 2}, {"HTML", 1}}) {
		t.Errorf("languages %v", ix.Languages)
	}
}

// Component files alone, or a page that loads scripts, make a frontend
// without a framework in a manifest.
func TestFrontendWithoutFramework(t *testing.T) {
	ix := mustBuild(t, repo(t, map[string]string{"go.mod": "module x\n", "web/Button.jsx": "export default 1\n"}))
	if !ix.HasFrontend || ix.FrontendReason != "1 .vue/.svelte/.jsx/.tsx file" {
		t.Errorf("has frontend %v (%s)", ix.HasFrontend, ix.FrontendReason)
	}
	ix = mustBuild(t, repo(t, map[string]string{"go.mod": "module x\n", "public/index.html": "<html><SCRIPT src=app.js></SCRIPT></html>"}))
	if !ix.HasFrontend || ix.FrontendReason != "public/index.html loads scripts" {
		t.Errorf("has frontend %v (%s)", ix.HasFrontend, ix.FrontendReason)
	}
	ix = mustBuild(t, repo(t, map[string]string{"go.mod": "module x\n", "docs/index.html": "<html><p>docs</p></html>"}))
	if ix.HasFrontend {
		t.Errorf("a page without scripts is a frontend: %s", ix.FrontendReason)
	}
}

func TestPythonPytest(t *testing.T) {
	ix := mustBuild(t, repo(t, map[string]string{
		"pyproject.toml": `[project]
name = "inventory"
description = "A Flask-free inventory service"
dependencies = ["fastapi>=0.110", "uvicorn[standard]", 'pydantic ; python_version >= "3.9"']

[project.optional-dependencies]
dev = ["pytest>=8"]

[project.scripts]
inventory = "inventory.cli:main"
`,
		"conftest.py":             "",
		"inventory/__init__.py":   "",
		"inventory/__main__.py":   "from inventory.cli import main\nmain()\n",
		"inventory/api.py":        "",
		"tests/test_api.py":       "def test_ok(): pass\n",
		"tests/helpers_test.py":   "",
		"requirements-dev.txt":    "# tools\n-e .\nDjango==4.2 ; python_version < '3.12'\nblack\n",
		"scripts/release/tool.py": "",
	}))
	if ix.TestCommand != "python3 -m pytest" || ix.BuildCommand != "" || ix.PackageManager != "" {
		t.Errorf("test %q, build %q, package manager %q", ix.TestCommand, ix.BuildCommand, ix.PackageManager)
	}
	if got := frameworkNames(ix); !slices.Equal(got, []string{"fastapi", "pytest", "django"}) {
		t.Errorf("frameworks %v: want fastapi and pytest from pyproject.toml, django from requirements-dev.txt, not flask from the description", got)
	}
	if entry(ix, "inventory") != "python -m" || entry(ix, "inventory.cli:main") != "pyproject script inventory" {
		t.Errorf("entry points %v", ix.EntryPoints)
	}
	if !ix.HasTests || ix.TestFiles != 2 || ix.HasFrontend {
		t.Errorf("has tests %v (%d), has frontend %v", ix.HasTests, ix.TestFiles, ix.HasFrontend)
	}
}

func TestCargoProject(t *testing.T) {
	ix := mustBuild(t, repo(t, map[string]string{
		"Cargo.toml": `[package]
name = "api"
description = "an actix-web rewrite"

[dependencies]
axum = "0.7"
serde = { version = "1", features = ["derive"] }

[dependencies.tokio]
version = "1"
`,
		"src/main.rs":    "fn main() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n}\n",
		"src/lib.rs":     "pub fn f() {}\n",
		"src/bin/cli.rs": "fn main() {}\n",
	}))
	if ix.BuildCommand != "cargo build" || ix.TestCommand != "cargo test" {
		t.Errorf("build %q, test %q", ix.BuildCommand, ix.TestCommand)
	}
	if got := frameworkNames(ix); !slices.Equal(got, []string{"axum", "tokio"}) {
		t.Errorf("frameworks %v: want axum and tokio, not actix from the description", got)
	}
	if entry(ix, "src/main.rs") != "rust binary" || entry(ix, "src/bin/cli.rs") != "rust binary" {
		t.Errorf("entry points %v", ix.EntryPoints)
	}
	if !ix.HasTests || ix.TestFiles != 1 {
		t.Errorf("has tests %v (%d files): main.rs holds #[test]", ix.HasTests, ix.TestFiles)
	}
}

func TestMakefileProject(t *testing.T) {
	ix := mustBuild(t, repo(t, map[string]string{
		"Makefile":         ".PHONY: build test\nCC := cc\nbuild:\n\t$(CC) -o hello src/hello.c\ntest: build\n\t./scripts/check.sh\n",
		"src/hello.c":      "int main(void) { return 0; }\n",
		"src/hello.h":      "",
		"scripts/check.sh": "#!/bin/sh\n./hello\n",
		"bin/install":      "#!/bin/sh\n",
		"bin/README.md":    "",
		"docs/manual.md":   "",
	}))
	if ix.BuildCommand != "make build" || ix.TestCommand != "make test" {
		t.Errorf("build %q, test %q", ix.BuildCommand, ix.TestCommand)
	}
	if !slices.Equal(ix.Languages, []Count{{"C", 2}, {"Shell", 1}}) {
		t.Errorf("languages %v", ix.Languages)
	}
	if !ix.HasTests || ix.TestsReason != "the Makefile has a test target" {
		t.Errorf("has tests %v (%s)", ix.HasTests, ix.TestsReason)
	}
	if entry(ix, "bin/install") != "bin script" || len(ix.EntryPoints) != 1 {
		t.Errorf("entry points %v", ix.EntryPoints)
	}
}

// A repository with no commit has nothing to index and no tree to cache
// by; a new file in it is still counted.
func TestEmptyRepository(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	ix := mustBuild(t, dir)
	if ix.Files != 0 || ix.Tree != "" || ix.Dirty || ix.HasTests || ix.HasFrontend || ix.TestCommand != "" || ix.BuildCommand != "" {
		t.Errorf("empty repository: %+v", ix)
	}
	if r := Render(ix); r != "Codebase index: 0 files (no commit yet)\nFrontend: no\nTests: no\n" {
		t.Errorf("Render = %q", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hive")); err == nil {
		t.Error("an index without a tree was cached")
	}
	write(t, dir, map[string]string{"main.go": "package main\n"})
	if ix := mustBuild(t, dir); ix.Files != 1 || !ix.Dirty || entry(ix, ".") != "go main package" {
		t.Errorf("a new file in an empty repository: %+v", ix)
	}
	if b, err := json.Marshal(mustBuild(t, dir)); err != nil || !strings.Contains(string(b), `"languages":[{"name":"Go","files":1}]`) {
		t.Errorf("JSON %s, %v", b, err)
	}
}

func TestNotARepository(t *testing.T) {
	_, err := Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "git init") {
		t.Fatalf("Build outside a repository = %v; want an error that says to git init", err)
	}
}

func cachePath(t *testing.T, dir, rev string) string {
	return filepath.Join(dir, ".git", "hive", "index-"+gitIn(t, dir, "rev-parse", rev)+".json")
}

func TestCache(t *testing.T) {
	dir := repo(t, goModule)
	cache := cachePath(t, dir, "HEAD^{tree}")

	// A miss builds the index and caches it under the tree's hash.
	first := mustBuild(t, dir)
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no cache after a build: %v", err)
	}
	if first.Tree != gitIn(t, dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("tree %q", first.Tree)
	}

	// A hit reads the file, not the repository.
	var cached Index
	if err := json.Unmarshal(data, &cached); err != nil {
		t.Fatal(err)
	}
	cached.Files = 999
	if err := os.WriteFile(cache, []byte(mustJSON(t, cached)), 0o644); err != nil {
		t.Fatal(err)
	}
	if ix := mustBuild(t, dir); ix.Files != 999 {
		t.Errorf("files %d: the cache was not read", ix.Files)
	}

	// A corrupt cache, or one of another version, is built again and
	// replaced.
	for _, bad := range []string{`{"version": 1, "tree": "`, "", strings.Replace(mustJSON(t, cached), `"version":1`, `"version":0`, 1)} {
		if err := os.WriteFile(cache, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if ix := mustBuild(t, dir); ix.Files != first.Files {
			t.Errorf("cache %q: files %d, want %d", bad, ix.Files, first.Files)
		}
		if again, _ := os.ReadFile(cache); string(again) != string(data) {
			t.Errorf("cache %q not replaced: %s", bad, again)
		}
	}

	// A dirty work tree is indexed as it is, and not cached: a new file
	// counts, a deleted one does not, a changed manifest is read.
	write(t, dir, map[string]string{"web/App.vue": "<template/>\n", "go.mod": "module example.com/svc\n\nrequire github.com/labstack/echo/v4 v4.11.0\n"})
	if err := os.Remove(filepath.Join(dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	ix := mustBuild(t, dir)
	if !ix.Dirty || ix.Tree != "" || ix.Files != first.Files || !ix.HasFrontend || !slices.Equal(frameworkNames(ix), []string{"echo"}) {
		t.Errorf("dirty tree: dirty %v, tree %q, files %d, frontend %v, frameworks %v", ix.Dirty, ix.Tree, ix.Files, ix.HasFrontend, frameworkNames(ix))
	}
	if !strings.Contains(Render(ix), "(work tree with uncommitted changes)") {
		t.Errorf("Render does not say the tree is dirty:\n%s", Render(ix))
	}
	if caches, _ := filepath.Glob(filepath.Join(dir, ".git", "hive", "index-*")); len(caches) != 1 {
		t.Errorf("caches %v: a dirty tree was cached", caches)
	}

	// Committed, the new tree gets its own cache entry.
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "echo")
	if ix := mustBuild(t, dir); ix.Dirty || ix.Tree == "" {
		t.Errorf("after the commit: dirty %v, tree %q", ix.Dirty, ix.Tree)
	}
	if _, err := os.Stat(cachePath(t, dir, "HEAD^{tree}")); err != nil {
		t.Error(err)
	}
}

// A folder inside a repository is indexed on its own, keyed by its own
// subtree; a worktree shares the repository's cache.
func TestSubfolderAndWorktree(t *testing.T) {
	dir := repo(t, map[string]string{
		"go.mod":            "module x\n",
		"main.go":           "package main\n",
		"web/package.json":  `{"scripts": {"build": "vite build"}, "dependencies": {"react": "18"}}`,
		"web/yarn.lock":     "",
		"web/src/App.tsx":   "",
		"web/src/a.test.ts": "",
	})
	ix := mustBuild(t, filepath.Join(dir, "web"))
	if ix.Files != 4 || ix.BuildCommand != "yarn run build" || ix.TestCommand != "" || !ix.HasFrontend || ix.TestFiles != 1 {
		t.Errorf("web/: %+v", ix)
	}
	if ix.Tree != gitIn(t, dir, "rev-parse", "HEAD:web") {
		t.Errorf("tree %q, want web's subtree", ix.Tree)
	}
	if _, err := os.Stat(cachePath(t, dir, "HEAD:web")); err != nil {
		t.Error(err)
	}
	// The whole repository's index reads web/package.json's frameworks.
	if ix := mustBuild(t, dir); !slices.Equal(frameworkNames(ix), []string{"react"}) || ix.Frameworks[0].Manifest != "web/package.json" {
		t.Errorf("frameworks %v", ix.Frameworks)
	}

	wt := filepath.Join(t.TempDir(), "wt")
	gitIn(t, dir, "worktree", "add", "-q", wt)
	if ix := mustBuild(t, wt); ix.Tree != gitIn(t, dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("worktree tree %q", ix.Tree)
	}
	if _, err := os.Stat(filepath.Join(wt, ".git", "hive")); err == nil {
		t.Error("the worktree's .git file became a folder")
	}
}

// Whatever the repository's size and names, the index stays small: lists
// are capped and say how many more there are.
func TestBounded(t *testing.T) {
	files := map[string]string{}
	long := strings.Repeat("x", 150)
	exts := []string{".go", ".py", ".js", ".ts", ".rs", ".java", ".rb", ".php", ".c", ".cpp", ".cs", ".swift", ".kt", ".scala", ".lua"}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("%s%02d/%s/a%s", long, i, long, exts[i%len(exts)])] = ""
		files[fmt.Sprintf("pkg%02d/sub%02d/%s.txt", i%3, i, long)] = ""
		files[fmt.Sprintf("cmd/%s%02d/main.go", long, i)] = "package main\n"
		files[fmt.Sprintf("tools/t%02d/package.json", i)] = fmt.Sprintf(`{"main": "%s.js", "bin": {"%s": "b.js"}, "dependencies": {"react": "1", "vue": "1", "express": "1"}}`, long, long)
	}
	files["go.mod"] = "module x\n"
	files["package.json"] = `{"dependencies": {"react": "1", "vue": "1", "svelte": "1", "next": "1", "nuxt": "1", "express": "1", "koa": "1", "hono": "1", "vite": "1", "jest": "1", "vitest": "1", "mocha": "1", "lit": "1", "preact": "1"}}`
	ix := mustBuild(t, repo(t, files))
	if len(ix.Languages) != maxLanguages || ix.MoreLanguages != 15-maxLanguages {
		t.Errorf("languages %d, %d more", len(ix.Languages), ix.MoreLanguages)
	}
	if len(ix.Dirs) != maxDirs || ix.MoreDirs != 35-maxDirs {
		t.Errorf("dirs %d, %d more", len(ix.Dirs), ix.MoreDirs)
	}
	if len(ix.EntryPoints) != maxEntryPoints || ix.MoreEntries == 0 || len(ix.Frameworks) != maxFrameworks || ix.MoreFrameworks != 2 {
		t.Errorf("entry points %d (%d more), frameworks %d (%d more)", len(ix.EntryPoints), ix.MoreEntries, len(ix.Frameworks), ix.MoreFrameworks)
	}
	r := Render(ix)
	if len(r) > MaxRendered {
		t.Errorf("Render: %d bytes", len(r))
	}
	for _, s := range []string{"… 23 more folders", "… 7 more", "… 2 more"} {
		if !strings.Contains(r, s) {
			t.Errorf("Render lacks %q:\n%s", s, r)
		}
	}
}

func TestIsTestFile(t *testing.T) {
	for f, want := range map[string]bool{
		"x_test.go": true, "pkg/x.go": false, "test_api.py": true, "api_test.py": true, "api.py": false,
		"src/a.test.ts": true, "src/a.spec.jsx": true, "src/a.ts": false, "src/spec.ts": false,
		"test/api.js": true, "tests/run.sh": true, "spec/models/user_spec.rb": true, "tests/README.md": false,
		"src/__tests__/a.js": true, "tests/it.rs": true, "src/lib.rs": false,
		"app/src/test/java/AppTest.java": true, "RunnerTests/RunnerTests.swift": true, "lib/a_test.dart": true,
	} {
		if got := isTestFile(f); got != want {
			t.Errorf("isTestFile(%q) = %v", f, got)
		}
	}
}

func TestCut(t *testing.T) {
	s := strings.Repeat("a line of text\n", 400)
	got := cut(s, MaxRendered)
	if len(got) > MaxRendered || !strings.HasSuffix(got, "a line of text\n… (index cut)\n") {
		t.Errorf("cut: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
	if cut("short\n", MaxRendered) != "short\n" {
		t.Error("cut changed a short text")
	}
}

func TestTools(t *testing.T) {
	has := map[string]bool{"psql": true, "go": true, "docker": true, "nonsense": true}
	got := Tools(func(name string) (string, error) {
		if has[name] {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	})
	if strings.Join(got, ",") != "docker,psql,go" {
		t.Errorf("Tools = %v", got)
	}
}
