package piperun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline"
)

// realPlan is a plan of the fixture's phase: it names health.go, reads
// @main.go, and its task has a verify and a done.
const realPlan = `---
phase: 01-health
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [health.go]
autonomous: true
---

<objective>
Add the health endpoint.
</objective>

<context>
@main.go
</context>

<tasks>

<task type="auto">
  <name>Task 1: Health handler</name>
  <files>health.go</files>
  <action>Write func health(w http.ResponseWriter, r *http.Request) that writes 200 and "ok".</action>
  <verify>go test ./... passes</verify>
  <done>GET /health answers 200 ok</done>
</task>

</tasks>
`

const phaseDir = ".planning/phases/01-health"

// goService is a small Go service with a passing test and the phase's plan.
var goService = map[string]string{
	"go.mod":                    "module example.com/svc\n\ngo 1.22\n",
	"main.go":                   "package main\n\nfunc main() {}\n",
	"main_test.go":              "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {}\n",
	"README.md":                 "# svc\n",
	".planning/ROADMAP.md":      "# Roadmap\n\n## Phases\n\n- [ ] **Phase 1: Health** - a health endpoint\n\n### Phase 1: Health\n**Goal**: a health endpoint\n",
	phaseDir + "/01-01-PLAN.md": realPlan,
}

// npmService is a Node project whose tests run with node's test runner.
var npmService = map[string]string{
	"package.json": `{"name": "svc", "version": "1.0.0", "scripts": {"test": "node --test"}}` + "\n",
	"add.js":       "module.exports = (a, b) => a + b;\n",
	"add.test.js":  "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('./add');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n",
}

// pyService is a Python project whose tests run with pytest (make test
// provides it: make python).
var pyService = map[string]string{
	"pyproject.toml":     "[project]\nname = \"svc\"\nversion = \"1.0.0\"\n\n[project.optional-dependencies]\ndev = [\"pytest>=7\"]\n",
	"calc.py":            "def add(a, b):\n    return a + b\n",
	"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():\n    assert add(0, 5) == 5\n",
	"tests/conftest.py":  "import os, sys\n\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
}

// pyRootService is the layout pytest documents first: the module and its
// test at the root, no configuration file.
var pyRootService = map[string]string{
	"app.py":      "def version():\n    return \"1.0\"\n",
	"test_app.py": "from app import version\n\n\ndef test_version():\n    assert version() == \"1.0\"\n",
}

// fixture commits files as the run's base, then writes change on top
// (committed too, as a role's work is) and returns a shell on it.
func fixture(t *testing.T, files, change map[string]string) (*executor, pipeline.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	write := func(m map[string]string) {
		for name, text := range m {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(files)
	initRepo(t, dir, "base")
	base := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	write(change)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "the role's work")
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &executor{o: Options{Repo: repo}, dir: dir}
	return s, pipeline.Snapshot{Spec: pipeline.Spec{Base: base, PhaseDir: phaseDir}}
}

// realEvidence runs the fixture's build and tests for real, as an
// evaluation does, and reads the change and the plans' lint.
func realEvidence(t *testing.T, s *executor, snap pipeline.Snapshot) evidence {
	ev := evidence{lint: s.lint(phaseDir)}
	ev.build, ev.tests = s.freshRuns(t.Context())
	ev.changed, ev.added = s.changes(t.Context(), snap.Spec.Base)
	return ev
}

// Each mechanical check of computed confidence passes on one real fixture
// repository and fails on another: real git diffs, real go build, go test
// npm test (node's test runner) and pytest runs, real plans linted by hive.
func TestMechanicalChecksOnRealRepos(t *testing.T) {
	t.Parallel()
	good := map[string]string{"health.go": "package main\n\nimport \"net/http\"\n\nfunc health(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(\"ok\")) }\n"}
	cases := []struct {
		name, role, check string
		files, change     map[string]string
		findings          []pipeline.Finding
		ok                bool
	}{
		{"a change that builds", pipeline.RoleImplementer, "build passes", goService, good, nil, true},
		{"a syntax error", pipeline.RoleImplementer, "build passes", goService, map[string]string{"health.go": "package main\n\nfunc health( {\n"}, nil, false},
		{"go tests pass", pipeline.RoleImplementer, "tests pass", goService, good, nil, true},
		{"a go test fails", pipeline.RoleImplementer, "tests pass", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) { t.Fatal(\"no\") }\n"}, nil, false},
		{"the planned file changed", pipeline.RoleImplementer, "changes cover the plans' files", goService, good, nil, true},
		{"only another file changed", pipeline.RoleImplementer, "changes cover the plans' files", goService, map[string]string{"other.go": "package main\n"}, nil, false},
		{"no TODO added", pipeline.RoleImplementer, "no new TODO/FIXME", goService, good, nil, true},
		{"a TODO added", pipeline.RoleImplementer, "no new TODO/FIXME", goService, map[string]string{"health.go": "package main\n\n// TODO: write the handler\n"}, nil, false},
		{"npm tests pass", pipeline.RoleImplementer, "tests pass", npmService, map[string]string{"add.js": "module.exports = (a, b) => b + a;\n"}, nil, true},
		{"an npm test fails", pipeline.RoleImplementer, "tests pass", npmService, map[string]string{"add.js": "module.exports = (a, b) => a - b;\n"}, nil, false},
		{"pytest tests pass", pipeline.RoleImplementer, "tests pass", pyService, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, true},
		{"a pytest test fails", pipeline.RoleImplementer, "tests pass", pyService, map[string]string{"calc.py": "def add(a, b):\n    return a - b\n"}, nil, false},
		{"pytest counted", pipeline.RoleTester, "tests ran and were read", pyService, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, true},
		{"one pytest test of two fails", pipeline.RoleTester, "pass rate", pyService, map[string]string{"calc.py": "def add(a, b):\n    return a + b + (a == 0)\n"}, nil, false},
		{"pytest's root layout counted", pipeline.RoleTester, "tests ran and were read", pyRootService, map[string]string{"app.py": "def version():\n    return \"1\" + \".0\"\n"}, nil, true},
		{"a pytest project without a test", pipeline.RoleImplementer, "tests pass", map[string]string{"pyproject.toml": pyService["pyproject.toml"], "calc.py": pyService["calc.py"]}, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, false},
		{"go test -v counted", pipeline.RoleTester, "tests ran and were read", goService, good, nil, true},
		{"no test at all", pipeline.RoleTester, "tests ran and were read", map[string]string{"go.mod": goService["go.mod"], "main.go": goService["main.go"]}, good, nil, false},
		{"every test passes", pipeline.RoleTester, "pass rate", goService, good, nil, true},
		{"one test of two fails", pipeline.RoleTester, "pass rate", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) { t.Fatal(\"no\") }\n"}, nil, false},
		{"a test file changed", pipeline.RoleTester, "tests touch the change", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) {}\n"}, nil, true},
		{"only the README changed", pipeline.RoleTester, "tests touch the change", goService, map[string]string{"README.md": "# svc\n\nMore.\n"}, nil, false},
		{"plans that lint", pipeline.RoleArchitect, "plans lint clean", goService, nil, nil, true},
		{"a plan that depends on a plan not there", pipeline.RoleArchitect, "plans lint clean", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "depends_on: []", "depends_on: [01-07]", 1)}, nil, false},
		{"@main.go exists", pipeline.RoleArchitect, "referenced paths exist", goService, nil, nil, true},
		{"@server/routes.go does not", pipeline.RoleArchitect, "referenced paths exist", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "@main.go", "@server/routes.go", 1)}, nil, false},
		{"a task with verify and done", pipeline.RoleArchitect, "tasks have verify and done", goService, nil, nil, true},
		{"a task without done", pipeline.RoleArchitect, "tasks have verify and done", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "  <done>GET /health answers 200 ok</done>\n", "", 1)}, nil, false},
		{"a precise action", pipeline.RoleArchitect, "few vague words", goService, nil, nil, true},
		{"a vague action", pipeline.RoleArchitect, "few vague words", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, `Write func health(w http.ResponseWriter, r *http.Request) that writes 200 and "ok".`, "Handle errors properly, add logging as needed, validate inputs appropriately etc.", 1)}, nil, false},
		{"a finding at a real line", pipeline.RoleReviewer, "findings cite real files and lines", goService, good, []pipeline.Finding{{Job: pipeline.RoleReviewer, File: "health.go", Line: 5}}, true},
		{"a finding in a file that is not there", pipeline.RoleReviewer, "findings cite real files and lines", goService, good, []pipeline.Finding{{Job: pipeline.RoleReviewer, File: "handlers/health.go", Line: 5}}, false},
	}
	npm := exec.Command("npm", "--version").Run() == nil
	pytest := exec.Command("python3", "-m", "pytest", "--version").Run() == nil
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.files["package.json"] != "" && !npm {
				if os.Getenv("CI") != "" {
					t.Fatal("no npm: make test installs the agent CLIs with it, so CI has it")
				}
				t.Skip("no npm on this machine (make test uses it to install the agent CLIs); skipped outside CI")
			}
			if (c.files["pyproject.toml"] != "" || c.files["test_app.py"] != "") && !pytest {
				if os.Getenv("CI") != "" {
					t.Fatal("python3 -m pytest does not run: make test provides it (make python), so CI has it")
				}
				t.Skip("no pytest for python3 here (make python provides it); skipped outside CI")
			}
			s, snap := fixture(t, c.files, c.change)
			snap.Findings = c.findings
			snap.Jobs = []pipeline.Job{{ID: c.role, Role: c.role, Attempts: 1}}
			sc, _ := s.checkRole(c.role, snap, realEvidence(t, s, snap))
			var got *confidence.Check
			for i := range sc.Checks {
				if sc.Checks[i].Name == c.check {
					got = &sc.Checks[i]
				}
			}
			if got == nil {
				t.Fatalf("the %s has no check %q: %s", c.role, c.check, sc)
			}
			if got.OK != c.ok || (c.ok && got.Points != got.Max) || (!c.ok && got.Points == got.Max) {
				t.Errorf("%q: ok=%v %d/%d (%s); want ok=%v", c.check, got.OK, got.Points, got.Max, got.Detail, c.ok)
			}
		})
	}
}

// A build or test command that could not run at all (exit 127) in the
// run's fresh worktree says what is likely missing and how to go on; a
// configured set-up command is not second-guessed.
func TestUnrunnableSaysWhatTheCheckoutLacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"build": "next build"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &executor{dir: dir}
	got := &pipeline.Tests{Command: "npm run build", ExitCode: 127, Output: "sh: 1: next: not found\n"}
	s.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "sh: 1: next: not found\n\nhive: "+dir+" is a fresh checkout") ||
		!strings.Contains(got.Output, "run npm ci there, then answer retry") || !strings.Contains(got.Output, "workflow.worktree_setup.command") {
		t.Errorf("unrunnable build: %+v", got)
	}

	s.o.Setup.Command = "npm ci"
	got = &pipeline.Tests{Command: "npm run build", ExitCode: 127, Output: "sh: 1: next: not found"}
	s.unrunnable(got)
	if !got.Unrunnable || got.Output != "sh: 1: next: not found" {
		t.Errorf("with a set-up command: %+v", got)
	}
	// A pnpm project: its install command is pnpm's; and pnpm itself
	// missing is said as that, whatever the set-up command.
	if err := os.WriteFile(filepath.Join(dir, "pnpm-lock.yaml"), []byte("lockfileVersion: '9.0'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.o.Setup.Command = ""
	got = &pipeline.Tests{Command: "pnpm run build", ExitCode: 127, Output: "sh: 1: next: not found"}
	s.unrunnable(got)
	if !strings.Contains(got.Output, "run pnpm install --frozen-lockfile there") || !strings.Contains(got.Output, `("pnpm install --frozen-lockfile", say)`) {
		t.Errorf("a pnpm project's missing dependencies: %+v", got)
	}
	s.o.Setup.Command = "pnpm install"
	got = &pipeline.Tests{Command: "pnpm run build", ExitCode: -1, Output: `run pnpm run build: exec: "pnpm": executable file not found in $PATH`}
	s.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pnpm is not installed here (not on PATH)") || strings.Contains(got.Output, "fresh checkout") {
		t.Errorf("pnpm itself missing: %+v", got)
	}
	// python3 -m pytest without pytest exits 1: no test failed, and no
	// implementer is sent to fix it.
	got = &pipeline.Tests{Command: "python3 -m pytest", ExitCode: 1, Output: "/usr/bin/python3: No module named pytest\n"}
	s.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pytest is not installed for python3: install the project's test dependencies (pip install pytest") {
		t.Errorf("pytest missing: %+v", got)
	}
	got = &pipeline.Tests{Command: "uv run pytest", ExitCode: 2, Output: "error: Failed to spawn: `pytest`\n  Caused by: No such file or directory (os error 2)\n"}
	s.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pytest is not installed in the project's uv environment: add it to the project's dev dependencies") {
		t.Errorf("uv without pytest (its exit code is 2): %+v", got)
	}
	got = &pipeline.Tests{Command: "uv run pytest", ExitCode: -1, Output: `run uv run pytest: exec: "uv": executable file not found in $PATH`}
	s.unrunnable(got)
	if !strings.Contains(got.Output, "hive: uv is not installed here (not on PATH): install it") {
		t.Errorf("uv missing: %+v", got)
	}
	failing := &pipeline.Tests{Command: "go test ./...", ExitCode: 1, Output: "FAIL"}
	s.unrunnable(failing)
	if failing.Unrunnable || failing.Output != "FAIL" {
		t.Errorf("a failing run is not unrunnable: %+v", failing)
	}
}

// A project with no test and nothing to build: the run completes, but the
// build step and the tester are skipped, never done, the notes say how to
// configure the commands, and the computed confidence counts no pass.
// With commands.test and commands.build set, hive runs them instead.
func TestNoTestsIsNoPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	initRepo(t, dir, "initial")
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, pipeline.Quick)
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	states := jobs(s)
	if s.Outcome != pipeline.OutcomeComplete || !strings.Contains(states, "build=skipped") || !strings.Contains(states, "tester=skipped") {
		t.Errorf("outcome %s, jobs %s; want build and tester skipped", s.Outcome, states)
	}
	if s.Tests == nil || !s.Tests.None || s.Tests.Ran() {
		t.Errorf("the last test run %+v; want None", s.Tests)
	}
	lines := strings.Join(o.Observer.(*notes).lines, "\n")
	for _, want := range []string{"note tester no tests found: ", "set commands.test in .hive/config.json", "note build no build command found", "set commands.build"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the notes lack %q:\n%s", want, lines)
		}
	}
	for _, sc := range Confidence(o.Journal, res.Run.ID) {
		for _, c := range sc.Checks {
			passed := c.OK && !c.Skipped
			if (c.Name == "build passes" || c.Name == "tests pass" || c.Name == "tests ran and were read" || c.Name == "pass rate") && passed {
				t.Errorf("%s: %q passed with nothing run: %s", sc.Role, c.Name, sc)
			}
		}
	}

	// The configured commands run, by sh -c, in the run's worktree.
	o = options(t, repo, pipeline.Quick)
	o.TestCommand, o.BuildCommand = "grep -q notes README.md && echo '1 passed in 0.01s'", "test -f README.md"
	res, err = Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s = res.Snapshot
	if states := jobs(s); !strings.Contains(states, "build=done") || !strings.Contains(states, "tester=done") || s.Tests == nil || s.Tests.Command != o.TestCommand || s.Tests.None {
		t.Errorf("with commands: jobs %s, tests %+v", states, s.Tests)
	}
}
