package testrun

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name           string
		out            string
		passed, failed int
		failing        []string
		known          bool
	}{
		{name: "go test -v", out: `=== RUN   TestHealth
--- FAIL: TestHealth (0.00s)
    health_test.go:12: status 404, want 200
=== RUN   TestRoutes
=== RUN   TestRoutes/get
--- PASS: TestRoutes (0.00s)
    --- PASS: TestRoutes/get (0.00s)
=== RUN   TestHead
    --- FAIL: TestHead/empty (0.00s)
--- FAIL: TestHead (0.00s)
FAIL
FAIL	example.com/svc	0.012s
ok  	example.com/svc/store	0.004s
`, passed: 1, failed: 2, failing: []string{"TestHealth", "TestHead/empty", "TestHead"}, known: true},
		{name: "go test quiet, all pass", out: "ok  \texample.com/svc\t0.010s\nok  \texample.com/svc/store\t(cached)\n", known: true},
		{name: "pytest", out: `============================= test session starts ==============================
collected 12 items

tests/test_api.py ..F.                                                   [ 33%]
tests/test_db.py ........                                                [100%]

=========================== short test summary info ============================
FAILED tests/test_api.py::test_health - AssertionError: assert 404 == 200
========================= 1 failed, 11 passed in 0.31s =========================
`, passed: 11, failed: 1, failing: []string{"tests/test_api.py::test_health"}, known: true},
		{name: "jest", out: ` FAIL  src/health.test.js
  ● health › answers 200

    expect(received).toBe(expected) // Object.is equality

 PASS  src/routes.test.js

Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 6 passed, 7 total
Snapshots:   0 total
Time:        1.2 s
`, passed: 6, failed: 1, failing: []string{"src/health.test.js", "health › answers 200"}, known: true},
		{name: "vitest", out: ` ✓ src/routes.test.ts (4 tests) 3ms
 × src/health.test.ts > health > answers 200 5ms

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 4 passed (5)
`, passed: 4, failed: 1, failing: []string{"src/health.test.ts > health > answers 200"}, known: true},
		{name: "cargo test", out: `running 3 tests
test tests::parses ... ok
test tests::health ... FAILED
test tests::routes ... ok

failures:

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`, passed: 2, failed: 1, failing: []string{"tests::health"}, known: true},
		{name: "unknown runner", out: "make: *** [check] Error 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Parse(tc.out)
			if c.Passed != tc.passed || c.Failed != tc.failed || c.Known != tc.known || !slices.Equal(c.Failing, tc.failing) {
				t.Errorf("Parse = %+v, want passed %d failed %d failing %q known %v", c, tc.passed, tc.failed, tc.failing, tc.known)
			}
		})
	}
}

// A runner that found no test says so, and Parse reads it as no tests,
// never as a pass; a run that ran a test is never "no tests".
func TestParseNoTests(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		none      bool
	}{
		{"pytest", "============================= test session starts ==============================\ncollected 0 items\n\n============================ no tests ran in 0.01s =============================\n", true},
		{"jest", "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0\n", true},
		{"vitest", "No test files found, exiting with code 1\n", true},
		{"go test, no package with tests", "?   \texample.com/svc\t[no test files]\n?   \texample.com/svc/store\t[no test files]\n", true},
		{"go test quiet, one package with tests", "?   \texample.com/svc\t[no test files]\nok  \texample.com/svc/store\t0.004s\n", false},
		{"pytest that ran", "========================= 1 failed, 11 passed in 0.31s =========================\n", false},
		{"a script's own output", "all good\n", false},
	} {
		if got := Parse(tc.out).NoTests; got != tc.none {
			t.Errorf("%s: NoTests = %v, want %v", tc.name, got, tc.none)
		}
	}
}
