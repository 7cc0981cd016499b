package evaluation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/checks"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

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
// (committed too, as a role's work is) and returns an evaluator on it.
func fixture(t *testing.T, files, change map[string]string) (*Evaluator, roleplan.Snapshot) {
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
	gittest.Trimmed(t, dir, "init", "-q", "-b", "main")
	gittest.Trimmed(t, dir, "config", "user.name", "Hive Test")
	gittest.Trimmed(t, dir, "config", "user.email", "hive@example.invalid")
	gittest.Trimmed(t, dir, "config", "commit.gpgsign", "false")
	gittest.Trimmed(t, dir, "add", ".")
	gittest.Trimmed(t, dir, "commit", "-q", "-m", "base")
	base := strings.TrimSpace(gittest.Trimmed(t, dir, "rev-parse", "HEAD"))
	write(change)
	gittest.Trimmed(t, dir, "add", ".")
	gittest.Trimmed(t, dir, "commit", "-q", "--allow-empty", "-m", "the role's work")
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	x := &Evaluator{Repo: repo, Checks: checks.Worktree{Dir: dir}}
	return x, roleplan.Snapshot{Spec: roleplan.Spec{Base: base, PhaseDir: phaseDir}}
}

// realEvidence runs the fixture's build and tests for real, as an
// evaluation does, and reads the change and the plans' lint.
func realEvidence(t *testing.T, x *Evaluator, snap roleplan.Snapshot) evidence {
	ev := evidence{lint: x.Checks.Lint(phaseDir)}
	ev.build, ev.tests = x.freshRuns(t.Context())
	ev.changed, ev.added = checks.Changes(t.Context(), x.Repo.At(x.Checks.Dir), snap.Spec.Base)
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
		findings          []roleplan.Finding
		ok                bool
	}{
		{"a change that builds", workflows.RoleImplementer, "build passes", goService, good, nil, true},
		{"a syntax error", workflows.RoleImplementer, "build passes", goService, map[string]string{"health.go": "package main\n\nfunc health( {\n"}, nil, false},
		{"go tests pass", workflows.RoleImplementer, "tests pass", goService, good, nil, true},
		{"a go test fails", workflows.RoleImplementer, "tests pass", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) { t.Fatal(\"no\") }\n"}, nil, false},
		{"the planned file changed", workflows.RoleImplementer, "changes cover the plans' files", goService, good, nil, true},
		{"only another file changed", workflows.RoleImplementer, "changes cover the plans' files", goService, map[string]string{"other.go": "package main\n"}, nil, false},
		{"no TODO added", workflows.RoleImplementer, "no new TODO/FIXME", goService, good, nil, true},
		{"a TODO added", workflows.RoleImplementer, "no new TODO/FIXME", goService, map[string]string{"health.go": "package main\n\n// TODO: write the handler\n"}, nil, false},
		{"npm tests pass", workflows.RoleImplementer, "tests pass", npmService, map[string]string{"add.js": "module.exports = (a, b) => b + a;\n"}, nil, true},
		{"an npm test fails", workflows.RoleImplementer, "tests pass", npmService, map[string]string{"add.js": "module.exports = (a, b) => a - b;\n"}, nil, false},
		{"pytest tests pass", workflows.RoleImplementer, "tests pass", pyService, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, true},
		{"a pytest test fails", workflows.RoleImplementer, "tests pass", pyService, map[string]string{"calc.py": "def add(a, b):\n    return a - b\n"}, nil, false},
		{"pytest counted", workflows.RoleTester, "tests ran and were read", pyService, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, true},
		{"one pytest test of two fails", workflows.RoleTester, "pass rate", pyService, map[string]string{"calc.py": "def add(a, b):\n    return a + b + (a == 0)\n"}, nil, false},
		{"pytest's root layout counted", workflows.RoleTester, "tests ran and were read", pyRootService, map[string]string{"app.py": "def version():\n    return \"1\" + \".0\"\n"}, nil, true},
		{"a pytest project without a test", workflows.RoleImplementer, "tests pass", map[string]string{"pyproject.toml": pyService["pyproject.toml"], "calc.py": pyService["calc.py"]}, map[string]string{"calc.py": "def add(a, b):\n    return b + a\n"}, nil, false},
		{"go test -v counted", workflows.RoleTester, "tests ran and were read", goService, good, nil, true},
		{"no test at all", workflows.RoleTester, "tests ran and were read", map[string]string{"go.mod": goService["go.mod"], "main.go": goService["main.go"]}, good, nil, false},
		{"every test passes", workflows.RoleTester, "pass rate", goService, good, nil, true},
		{"one test of two fails", workflows.RoleTester, "pass rate", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) { t.Fatal(\"no\") }\n"}, nil, false},
		{"a test file changed", workflows.RoleTester, "tests touch the change", goService, map[string]string{"health_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHealth(t *testing.T) {}\n"}, nil, true},
		{"only the README changed", workflows.RoleTester, "tests touch the change", goService, map[string]string{"README.md": "# svc\n\nMore.\n"}, nil, false},
		{"plans that lint", workflows.RoleArchitect, "plans lint clean", goService, nil, nil, true},
		{"a plan that depends on a plan not there", workflows.RoleArchitect, "plans lint clean", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "depends_on: []", "depends_on: [01-07]", 1)}, nil, false},
		{"@main.go exists", workflows.RoleArchitect, "referenced paths exist", goService, nil, nil, true},
		{"@server/routes.go does not", workflows.RoleArchitect, "referenced paths exist", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "@main.go", "@server/routes.go", 1)}, nil, false},
		{"a task with verify and done", workflows.RoleArchitect, "tasks have verify and done", goService, nil, nil, true},
		{"a task without done", workflows.RoleArchitect, "tasks have verify and done", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, "  <done>GET /health answers 200 ok</done>\n", "", 1)}, nil, false},
		{"a precise action", workflows.RoleArchitect, "few vague words", goService, nil, nil, true},
		{"a vague action", workflows.RoleArchitect, "few vague words", goService, map[string]string{phaseDir + "/01-01-PLAN.md": strings.Replace(realPlan, `Write func health(w http.ResponseWriter, r *http.Request) that writes 200 and "ok".`, "Handle errors properly, add logging as needed, validate inputs appropriately etc.", 1)}, nil, false},
		{"a finding at a real line", workflows.RoleReviewer, "findings cite real files and lines", goService, good, []roleplan.Finding{{Job: workflows.RoleReviewer, File: "health.go", Line: 5}}, true},
		{"a finding in a file that is not there", workflows.RoleReviewer, "findings cite real files and lines", goService, good, []roleplan.Finding{{Job: workflows.RoleReviewer, File: "handlers/health.go", Line: 5}}, false},
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
			x, snap := fixture(t, c.files, c.change)
			snap.Findings = c.findings
			snap.Jobs = []roleplan.Job{{ID: c.role, Role: c.role, Attempts: 1}}
			sc, _ := x.checkRole(c.role, snap, realEvidence(t, x, snap))
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
