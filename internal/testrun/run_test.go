package testrun

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{"go.mod": "module x\n", "x_test.go": "package x\n"}, []string{"go", "test", "-v", "./..."}},
		{map[string]string{"go.mod": "module x\n", "internal/store/store_test.go": "package store\n"}, []string{"go", "test", "-v", "./..."}},
		// A module without a test file has no suite: go test would pass it
		// with nothing run. Test files the Go tool leaves out do not count.
		{map[string]string{"go.mod": "module x\n", "x.go": "package x\n"}, nil},
		{map[string]string{"go.mod": "module x\n", "testdata/fixture_test.go": "", "vendor/y/y_test.go": "", ".git/z_test.go": ""}, nil},
		// pytest's own layouts, without any configuration file.
		{map[string]string{"app.py": "", "test_app.py": ""}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"app.py": "", "app_test.py": ""}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"src/app.py": "", "tests/unit/test_app.py": ""}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"tox.ini": "[tox]\n"}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"app.py": "", "tests/helpers.py": "", "testing.py": ""}, nil},
		// A Go module's Python scripts' tests are found when it has none.
		{map[string]string{"go.mod": "module x\n", "scripts/test_gen.py": "", "test_tool.py": ""}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"Cargo.toml": "[package]\n"}, []string{"cargo", "test"}},
		{map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`}, []string{"npm", "test", "--silent"}},
		{map[string]string{"pyproject.toml": "[project]\n"}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`, "pnpm-lock.yaml": ""}, []string{"pnpm", "test"}},
		{map[string]string{"package.json": `{"scripts": {"test": "jest"}}`, "yarn.lock": ""}, []string{"yarn", "test"}},
		{map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`, "bun.lock": ""}, []string{"bun", "run", "test"}},
		{map[string]string{"package.json": `{"packageManager": "pnpm@9.1.0", "scripts": {"test": "jest"}}`}, []string{"pnpm", "test"}},
		{map[string]string{"conftest.py": ""}, []string{"python3", "-m", "pytest"}},
		// A uv or Poetry project runs pytest in its own environment.
		{map[string]string{"pyproject.toml": "[project]\n", "uv.lock": ""}, []string{"uv", "run", "pytest"}},
		{map[string]string{"pyproject.toml": "[tool.poetry]\n", "poetry.lock": "", "tests/test_a.py": ""}, []string{"poetry", "run", "pytest"}},
		// A package.json without tests does not hide the Python tests beside it.
		{map[string]string{"package.json": `{"scripts": {"lint": "eslint ."}}`, "pytest.ini": ""}, []string{"python3", "-m", "pytest"}},
		{map[string]string{"Makefile": ".PHONY: test\ntest: build\n\t./run-tests.sh\n"}, []string{"make", "test"}},
		{map[string]string{"package.json": `{"scripts": {}}`}, nil},
		{map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, nil},
		{map[string]string{"Makefile": "test := x\n.PHONY: test\nall:\n\techo test: no\n"}, nil},
		{map[string]string{"README.md": "hi"}, nil},
	} {
		dir := t.TempDir()
		write(t, dir, tc.files)
		c, err := Detect(dir)
		if tc.want == nil {
			if !errors.Is(err, ErrNoTests) {
				t.Errorf("%v: Detect = %v, %v; want ErrNoTests", tc.files, c, err)
			}
			continue
		}
		if err != nil || !slices.Equal(c.Argv, tc.want) {
			t.Errorf("%v: Detect = %v, %v; want %v", tc.files, c.Argv, err, tc.want)
		}
	}
}

// A real go test run of a module with one passing and one failing test:
// the exit code and the counts are read, the failing test named.
func TestRunGoTests(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod":      "module example.com/svc\n\ngo 1.22\n",
		"svc.go":      "package svc\n\nfunc Health() int { return 404 }\n",
		"svc_test.go": "package svc\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) {\n\tif Health() != 200 {\n\t\tt.Fatal(\"not healthy\")\n\t}\n}\n\nfunc TestTrue(t *testing.T) {}\n",
	})
	c, err := Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || res.Passed != 1 || res.Failed != 1 || !slices.Equal(res.Failing, []string{"TestHealth"}) || res.Command != "go test -v ./..." {
		t.Fatalf("Run = %+v", res)
	}
	if _, err := Run(context.Background(), dir, Command{Argv: []string{"no-such-test-runner"}}); err == nil {
		t.Fatal("a runner that does not exist is not an error")
	}
}

func TestDetectBuild(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{"go.mod": "module x\n", "Makefile": "build:\n\tgo build -o bin/x .\n"}, []string{"go", "build", "-o", os.DevNull, "./..."}},
		{map[string]string{"Cargo.toml": "[package]\n"}, []string{"cargo", "build"}},
		{map[string]string{"package.json": `{"scripts": {"build": "vite build"}}`}, []string{"npm", "run", "build"}},
		{map[string]string{"package.json": `{"scripts": {"build": "vite build"}}`, "pnpm-lock.yaml": ""}, []string{"pnpm", "run", "build"}},
		{map[string]string{"package.json": `{"scripts": {"build": "tsc"}}`, "yarn.lock": ""}, []string{"yarn", "run", "build"}},
		{map[string]string{"package.json": `{"scripts": {"test": "jest"}}`, "Makefile": "all build: dist\n"}, []string{"make", "build"}},
		{map[string]string{"package.json": `{not json`, "GNUmakefile": "build:\n"}, []string{"make", "build"}},
		{map[string]string{"package.json": `{"scripts": {"test": "jest"}}`}, nil},
		{map[string]string{"pyproject.toml": "[project]\n"}, nil},
		{map[string]string{"Makefile": "test:\n\tgo test\nbuild_dir := out\n"}, nil},
		{map[string]string{}, nil},
	} {
		dir := t.TempDir()
		write(t, dir, tc.files)
		c, ok := DetectBuild(dir)
		if ok != (tc.want != nil) || !slices.Equal(c.Argv, tc.want) {
			t.Errorf("%v: DetectBuild = %v, %v; want %v", tc.files, c.Argv, ok, tc.want)
		}
	}
}

// A real go build of a module that does not compile: the build command runs
// through Run as the tests do, and its failure is an exit code and output
// for the debugger, not an error.
func TestRunGoBuild(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod": "module example.com/svc\n\ngo 1.22\n",
		"svc.go": "package svc\n\nfunc Health() int { return \"ok\" }\n",
	})
	c, ok := DetectBuild(dir)
	if !ok {
		t.Fatal("no build command for a Go module")
	}
	res, err := Run(context.Background(), dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || !strings.Contains(res.Output, "svc.go:3") || res.Command != "go build -o /dev/null ./..." {
		t.Fatalf("Run = %+v", res)
	}
	write(t, dir, map[string]string{"svc.go": "package svc\n\nfunc Health() int { return 200 }\n"})
	if res, err := Run(context.Background(), dir, c); err != nil || res.ExitCode != 0 {
		t.Fatalf("Run of a module that builds = %+v, %v", res, err)
	}
}

// A configured command wins over detection, run by sh -c as written; an
// empty one leaves the command to detection, and "nothing found" stays
// ErrNoTests.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"go.mod": "module x\n", "x_test.go": "package x\n", "Makefile": "build:\n"})
	if c, err := Find(dir, "  ./ci/test.sh --fast "); err != nil || c.Shell != "./ci/test.sh --fast" || c.Argv != nil {
		t.Errorf("Find with commands.test = %+v, %v", c, err)
	}
	if c, err := Find(dir, ""); err != nil || !slices.Equal(c.Argv, []string{"go", "test", "-v", "./..."}) {
		t.Errorf("Find without = %+v, %v", c, err)
	}
	if c, ok := FindBuild(dir, "make dist"); !ok || c.Shell != "make dist" {
		t.Errorf("FindBuild with commands.build = %+v, %v", c, ok)
	}
	if c, ok := FindBuild(dir, " "); !ok || !slices.Equal(c.Argv, []string{"go", "build", "-o", os.DevNull, "./..."}) {
		t.Errorf("FindBuild without = %+v, %v", c, ok)
	}
	empty := t.TempDir()
	if _, err := Find(empty, ""); !errors.Is(err, ErrNoTests) || !strings.Contains(err.Error(), "commands.test in .hive/config.json") {
		t.Errorf("Find in an empty project = %v; want ErrNoTests naming commands.test", err)
	}
	if _, ok := FindBuild(empty, ""); ok {
		t.Error("FindBuild in an empty project found a command")
	}
}

// A real pytest run of the layout pytest documents first (app.py and
// test_app.py at the root, no configuration): detected, run, and counted;
// a pytest project without a test is no pass but "no tests".
func TestRunPytestRootLayout(t *testing.T) {
	if exec.Command("python3", "-m", "pytest", "--version").Run() != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 -m pytest does not run: make test provides it (make python), so CI has it")
		}
		t.Skip("no pytest for python3 here (make python provides it); skipped outside CI")
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"app.py":      "def version():\n    return \"1.0\"\n",
		"test_app.py": "from app import version\n\n\ndef test_version():\n    assert version() == \"1.0\"\n\n\ndef test_fails():\n    assert version() == \"2.0\"\n",
	})
	c, err := Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || res.Passed != 1 || res.Failed != 1 || res.NoTests || !slices.Equal(res.Failing, []string{"test_app.py::test_fails"}) {
		t.Fatalf("Run = %+v", res)
	}

	empty := t.TempDir()
	write(t, empty, map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n", "app.py": ""})
	c, err = Detect(empty)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(context.Background(), empty, c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NoTests || res.Passed+res.Failed != 0 {
		t.Fatalf("pytest with no test: %+v; want NoTests", res)
	}
}
