package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Command is how a project runs its tests: a program and its arguments,
// run without a shell, or, for a command the user configured as one line,
// that line run by sh -c (the user's own configuration, like a gate).
type Command struct {
	Argv  []string
	Shell string
}

func (c Command) String() string {
	if c.Shell != "" {
		return c.Shell
	}
	return strings.Join(c.Argv, " ")
}

// ErrNoTests says hive found no way to run the project's tests.
var ErrNoTests = errors.New("no tests found: hive looks for go.mod with *_test.go files, Cargo.toml, package.json with a test script, " +
	"pytest's layouts (test_*.py or *_test.py at the root or under tests/, pytest.ini, pyproject.toml, setup.cfg, tox.ini, conftest.py), " +
	"or a Makefile with a test target; to run yours, set commands.test in .hive/config.json")

// Find is the project's test command: the configured one (the config's
// commands.test, a line for sh -c) when set, else the one Detect finds.
func Find(root, configured string) (Command, error) {
	if line := strings.TrimSpace(configured); line != "" {
		return Command{Shell: line}, nil
	}
	return Detect(root)
}

// FindBuild is the project's build command: the configured one (the
// config's commands.build) when set, else the one DetectBuild finds.
func FindBuild(root, configured string) (Command, bool) {
	if line := strings.TrimSpace(configured); line != "" {
		return Command{Shell: line}, true
	}
	return DetectBuild(root)
}

// Detect finds the test command of the project at root from its files.
// A language's own runner comes before a Makefile's test target: hive reads
// the runner's output (counts, failing tests), and make's is anything.
// A go.mod without a test file is no test suite: go test would pass it
// with nothing run.
func Detect(root string) (Command, error) {
	has := func(name string) bool { return exists(root, name) }
	switch {
	case has("go.mod") && holds(root, isGoTest):
		return Command{Argv: []string{"go", "test", "-v", "./..."}}, nil
	case has("Cargo.toml"):
		return Command{Argv: []string{"cargo", "test"}}, nil
	}
	if has("package.json") {
		scripts, err := packageScripts(root)
		if err != nil {
			return Command{}, err
		}
		if hasScript(scripts, "test") {
			// npm's own lines (> pkg@1.0.0 test) would only add noise to
			// the output the implementer reads; pnpm and yarn take their
			// flags before the script name, so they run it plainly.
			switch pm := PackageManager(root); pm {
			case "bun":
				// `bun test` is bun's own runner, not the script.
				return Command{Argv: []string{"bun", "run", "test"}}, nil
			case "pnpm", "yarn":
				return Command{Argv: []string{pm, "test"}}, nil
			}
			return Command{Argv: []string{"npm", "test", "--silent"}}, nil
		}
	}
	if pytestProject(root) {
		// A project whose lockfile says how its environment is made runs
		// pytest in it: the system python3 lacks the project's packages.
		switch {
		case has("uv.lock"):
			return Command{Argv: []string{"uv", "run", "pytest"}}, nil
		case has("poetry.lock"):
			return Command{Argv: []string{"poetry", "run", "pytest"}}, nil
		}
		return Command{Argv: []string{"python3", "-m", "pytest"}}, nil
	}
	if mk := makefile(root); mk != "" && makeTarget(mk, "test") {
		return Command{Argv: []string{"make", "test"}}, nil
	}
	return Command{}, ErrNoTests
}

// pytestProject says whether the project at root has tests pytest finds:
// its configuration files, or test files where its default discovery
// looks (test_*.py or *_test.py at the root, or under tests/).
func pytestProject(root string) bool {
	for _, name := range []string{"pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py"} {
		if exists(root, name) {
			return true
		}
	}
	if exists(root, "tests") && exists(root, "setup.py") {
		return true
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() && isPythonTest(e.Name()) {
			return true
		}
	}
	return holds(filepath.Join(root, "tests"), isPythonTest)
}

func isGoTest(name string) bool { return strings.HasSuffix(name, "_test.go") }

func isPythonTest(name string) bool {
	return strings.HasSuffix(name, ".py") && (strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"))
}

// maxWalk bounds how many entries holds looks at: a huge tree is not
// read whole for a yes or no.
const maxWalk = 20000

// holds says whether the tree at dir holds a file whose name is a test's
// by match, leaving out what the Go tool and the package managers leave
// out: hidden folders, _ folders, testdata, vendor and node_modules.
func holds(dir string, match func(name string) bool) bool {
	found, seen := false, 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		seen++
		switch {
		case err != nil || seen > maxWalk:
			return filepath.SkipAll
		case d.IsDir() && p != dir:
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules" {
				return filepath.SkipDir
			}
		case !d.IsDir() && match(d.Name()):
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// DetectBuild finds the build command of the project at root from its
// files, in the shape Detect gives the tests, for Run to run: go build,
// cargo build, package.json's build script with the project's package
// manager, or a Makefile's build target. Not found (a Python project, a
// package.json without a build script) is no error: there is nothing to
// build, and the pipeline's build step has nothing to check.
func DetectBuild(root string) (Command, bool) {
	has := func(name string) bool { return exists(root, name) }
	switch {
	case has("go.mod"):
		// -o /dev/null: a module of one main package would otherwise
		// leave its binary in the tree, for the next agent to commit.
		return Command{Argv: []string{"go", "build", "-o", os.DevNull, "./..."}}, true
	case has("Cargo.toml"):
		return Command{Argv: []string{"cargo", "build"}}, true
	}
	if has("package.json") {
		// A package.json that does not parse falls through: a Makefile may
		// still build the project, and npm would only fail on it.
		if scripts, err := packageScripts(root); err == nil && hasScript(scripts, "build") {
			return Command{Argv: []string{PackageManager(root), "run", "build"}}, true
		}
	}
	if mk := makefile(root); mk != "" && makeTarget(mk, "build") {
		return Command{Argv: []string{"make", "build"}}, true
	}
	return Command{}, false
}

// PackageManager names the JavaScript package manager of the project at
// root: the one whose lockfile is there (pnpm-lock.yaml, yarn.lock,
// bun.lock), else the one package.json's packageManager field names
// (corepack's), else npm. Running a pnpm project's scripts with npm would install or resolve
// differently from what its authors run.
func PackageManager(root string) string {
	switch {
	case exists(root, "pnpm-lock.yaml"):
		return "pnpm"
	case exists(root, "yarn.lock"):
		return "yarn"
	case exists(root, "bun.lock"), exists(root, "bun.lockb"):
		return "bun"
	}
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err == nil {
		var pkg struct {
			PackageManager string `json:"packageManager"`
		}
		if json.Unmarshal(data, &pkg) == nil {
			name, _, _ := strings.Cut(pkg.PackageManager, "@")
			if name == "pnpm" || name == "yarn" || name == "bun" {
				return name
			}
		}
	}
	return "npm"
}

func exists(root, name string) bool {
	_, err := os.Stat(filepath.Join(root, name))
	return err == nil
}

// packageScripts reads the scripts of root's package.json.
func packageScripts(root string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, err
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("package.json: %v (fix its JSON, or set commands.test in .hive/config.json)", err)
	}
	return pkg.Scripts, nil
}

// hasScript says whether scripts has a real script called name: npm init's
// placeholder test script ("echo \"Error: no test specified\" && exit 1")
// is no test suite, and running it would only fail.
func hasScript(scripts map[string]string, name string) bool {
	s := strings.TrimSpace(scripts[name])
	return s != "" && !strings.Contains(s, "no test specified")
}

// makefile returns the path of root's Makefile under any of the names GNU
// make reads, or "".
func makefile(root string) string {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if p := filepath.Join(root, name); exists(root, name) {
			return p
		}
	}
	return ""
}

// makeTarget says whether the Makefile at path defines target: a rule line
// "target:" or "target other:", not a variable ("target := x").
func makeTarget(path, target string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '\t' || line[0] == '#' {
			continue
		}
		head, rest, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(rest, "=") {
			continue
		}
		if slices.Contains(strings.Fields(head), target) {
			return true
		}
	}
	return false
}

// Result is one run of the tests.
type Result struct {
	Command  string
	ExitCode int
	Counts
	// Output is the output's last lines, for the implementer who fixes
	// the failures.
	Output string
}

// Run runs c in dir and reads its output. An exit code is a result, not
// an error: the error is for a command that could not run at all.
func Run(ctx context.Context, dir string, c Command) (Result, error) {
	var cmd *exec.Cmd
	switch {
	case c.Shell != "":
		cmd = exec.CommandContext(ctx, "sh", "-c", c.Shell)
	case len(c.Argv) > 0:
		cmd = exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	default:
		return Result{}, ErrNoTests
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := Result{Command: c.String(), Counts: Parse(out.String()), Output: tail(out.String(), 80)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("run %s: %w", c, err)
	}
	return res, nil
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d lines above", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
