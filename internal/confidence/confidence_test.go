package confidence

import (
	"strings"
	"testing"
)

// goodPlan references a path that exists, and its one task has a precise
// action, a verify and a done (piperun's TestMechanicalChecksOnRealRepos
// reads such plans from a real phase).
var goodPlan = Plan{Text: "Add the health endpoint.\n@main.go", Tasks: []Task{{
	Action: `Write func health(w http.ResponseWriter, r *http.Request) that writes 200 and "ok".`,
	Verify: "go test ./... passes", Done: "GET /health answers 200 ok"}}}

func check(t *testing.T, s Score, name string, ok bool) {
	t.Helper()
	for _, c := range s.Checks {
		if c.Name == name {
			if c.OK != ok || (ok && c.Points != c.Max) || (!ok && c.Points == c.Max) {
				t.Errorf("%s: %q ok=%v %d/%d (%s); want ok=%v", s.Role, name, c.OK, c.Points, c.Max, c.Detail, ok)
			}
			return
		}
	}
	t.Errorf("%s has no check %q: %v", s.Role, name, s)
}

func TestArchitect(t *testing.T) {
	exists := func(p string) bool { return p == "main.go" }
	good := Architect(nil, []Plan{goodPlan}, exists)
	if good.Points != MaxPoints {
		t.Errorf("good plans: %s", good)
	}
	bad := Plan{Text: "Add the health endpoint.\n@server/routes.go", Tasks: []Task{{
		Action: "Handle errors properly, add logging as needed, validate inputs appropriately etc.", Verify: "go test ./... passes"}}}
	s := Architect([]string{"05-01-PLAN.md:3: wave: missing"}, []Plan{bad}, exists)
	for _, name := range []string{"plans lint clean", "referenced paths exist", "tasks have verify and done", "few vague words"} {
		check(t, s, name, false)
	}
	if !strings.Contains(s.String(), "missing: server/routes.go") && !strings.Contains(s.Checks[1].Detail, "server/routes.go") {
		t.Errorf("the missing path is not named: %s", s.Checks[1].Detail)
	}
}

func TestImplementer(t *testing.T) {
	ok := Implementer(Run{Ran: true, OK: true, Command: "go build ./..."}, Run{Ran: true, OK: true, Passed: 3, Command: "go test ./..."},
		[]string{"health.go"}, []string{"health.go", "health_test.go"}, []string{"func health() {}"})
	if ok.Points != MaxPoints {
		t.Errorf("good work: %s", ok)
	}
	bad := Implementer(Run{Ran: true, Command: "go build ./..."}, Run{Ran: true, Failed: 1, Command: "go test ./..."},
		[]string{"health.go", "routes.go"}, []string{"health.go"}, []string{"// TODO: check the database", "x := 1 // FIXME"})
	for _, name := range []string{"build passes", "tests pass", "changes cover the plans' files", "no new TODO/FIXME"} {
		check(t, bad, name, false)
	}
	// Nothing to build neither passes nor fails: the check is skipped,
	// gives no points and leaves the score's Max; no test run fails.
	none := Implementer(Run{}, Run{}, nil, []string{"a.go"}, nil)
	check(t, none, "tests pass", false)
	for _, c := range none.Checks {
		if c.Name == "build passes" && (!c.Skipped || c.OK || c.Points != 0 || c.Mark() != "–") {
			t.Errorf("nothing to build: %+v; want a skipped check, no points", c)
		}
	}
	if none.Max != MaxPoints-20 || none.Points != 30 {
		t.Errorf("nothing to build, no tests: %d/%d; want 30/%d (the cover and TODO checks only)", none.Points, none.Max, MaxPoints-20)
	}
	if got, want := none.String(), "30/50 (build passes – (no build ran), tests pass ✗ 0/20"; !strings.HasPrefix(got, want) {
		t.Errorf("String = %q; want it to start %q", got, want)
	}
	if got := none.Failed(); len(got) != 1 || got[0] != "tests pass" {
		t.Errorf("Failed = %q; want only tests pass", got)
	}
	if none.OfMax() != 42 {
		t.Errorf("OfMax = %d; want 30 of 50 as 42 of %d", none.OfMax(), MaxPoints)
	}
	// A build that could not start ran, and failed.
	check(t, Implementer(Run{Ran: true, Command: "npm run build"}, Run{}, nil, nil, nil), "build passes", false)
}

func TestTester(t *testing.T) {
	ok := Tester(Run{Ran: true, OK: true, Passed: 4, Output: "ok  example.com/svc/api 0.1s"}, []string{"api/health.go"})
	if ok.Points != MaxPoints {
		t.Errorf("good tests: %s", ok)
	}
	withTest := Tester(Run{Ran: true, OK: true, Passed: 1}, []string{"health.go", "health_test.go"})
	check(t, withTest, "tests touch the change", true)
	bad := Tester(Run{Ran: true, Passed: 1, Failed: 3, Output: "FAIL example.com/svc/db"}, []string{"api/health.go"})
	check(t, bad, "pass rate", false)
	check(t, bad, "tests touch the change", false)
	unread := Tester(Run{Ran: true, OK: true, Output: "no tests to run"}, []string{"a.go"})
	check(t, unread, "tests ran and were read", false)
}

func TestReviewer(t *testing.T) {
	lines := func(p string) (int, bool) {
		n, ok := map[string]int{"api.go": 40}[p]
		return n, ok
	}
	if s := Reviewer("reviewer", []Finding{{"api.go", 12}}, lines); s.Points != MaxPoints {
		t.Errorf("a real finding: %s", s)
	}
	s := Reviewer("reviewer", []Finding{{"api.go", 12}, {"api.go", 400}, {"ghost.go", 1}}, lines)
	check(t, s, "findings cite real files and lines", false)
	if s.Points != MaxPoints/3 {
		t.Errorf("one of three real: %s", s)
	}
}
