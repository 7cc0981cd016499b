package testrun

import (
	"regexp"
	"strconv"
	"strings"
)

// Counts is what the output says about the tests.
type Counts struct {
	Passed, Failed int
	Failing        []string // names of failing tests, in order, once each
	Known          bool     // a known runner's summary was found
	// NoTests: the runner said it found no test to run (pytest's "no
	// tests ran", jest's and vitest's "No tests found", go test's "[no
	// test files]" in every package) and none was counted: a run that
	// proves nothing, whatever its exit code.
	NoTests bool
}

var (
	// go test -v: --- PASS: TestX (0.00s) / --- FAIL: TestX (0.00s)
	goResult = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL): (\S+)`)
	// go test without -v prints only failures, and "ok"/"FAIL" per package.
	goPackage = regexp.MustCompile(`(?m)^(ok|FAIL)\s+\S+\s`)
	// pytest: "=== 2 failed, 10 passed in 0.12s ===", "FAILED tests/test_a.py::test_b - ..."
	pytestSummary = regexp.MustCompile(`(?m)^=+ (.*\b(?:passed|failed|error|errors)\b.*) in [\d.]+s`)
	pytestFailed  = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+)`)
	// jest: "Tests:       1 failed, 4 passed, 5 total"; vitest: "Tests  1 failed | 4 passed (5)"
	jestSummary = regexp.MustCompile(`(?m)^\s*Tests:?\s+(.*?(?:passed|failed).*)$`)
	jestFailed  = regexp.MustCompile(`(?m)^\s*(?:●|×|✕|FAIL)\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s*m?s\)?)?\s*$`)
	// cargo: "test result: FAILED. 3 passed; 1 failed; ...", "test tests::it_works ... FAILED"
	cargoSummary = regexp.MustCompile(`(?m)^test result: \w+\. (\d+) passed; (\d+) failed`)
	cargoFailed  = regexp.MustCompile(`(?m)^test (\S+) \.\.\. FAILED`)
	countWord    = regexp.MustCompile(`(\d+) (passed|failed|errors?)`)
	// What the runners say when they found no test.
	noTestsSaid = regexp.MustCompile(`(?m)^=+ no tests ran in [\d.]+m?s =+$|No tests found, exiting with code \d|No test files found, exiting with code \d|\[no test files\]$`)
)

// Parse reads the counts of the known runners' output; several runners'
// output (a monorepo's) add up.
func Parse(out string) Counts {
	var c Counts
	add := func(name string) {
		for _, f := range c.Failing {
			if f == name {
				return
			}
		}
		c.Failing = append(c.Failing, name)
	}
	if ms := goResult.FindAllStringSubmatch(out, -1); len(ms) > 0 || goPackage.MatchString(out) {
		c.Known = true
		for _, m := range ms {
			// Subtests are counted under their parent: count top-level only.
			if strings.Contains(m[2], "/") {
				if m[1] == "FAIL" {
					add(m[2])
				}
				continue
			}
			if m[1] == "PASS" {
				c.Passed++
			} else {
				c.Failed++
				add(m[2])
			}
		}
	}
	for _, m := range pytestSummary.FindAllStringSubmatch(out, -1) {
		c.Known = true
		passed, failed := words(m[1])
		c.Passed += passed
		c.Failed += failed
	}
	if pytestSummary.MatchString(out) {
		for _, m := range pytestFailed.FindAllStringSubmatch(out, -1) {
			add(m[1])
		}
	}
	for _, m := range jestSummary.FindAllStringSubmatch(out, -1) {
		c.Known = true
		passed, failed := words(m[1])
		c.Passed += passed
		c.Failed += failed
		for _, f := range jestFailed.FindAllStringSubmatch(out, -1) {
			add(strings.TrimSpace(f[1]))
		}
	}
	for _, m := range cargoSummary.FindAllStringSubmatch(out, -1) {
		c.Known = true
		p, _ := strconv.Atoi(m[1])
		f, _ := strconv.Atoi(m[2])
		c.Passed += p
		c.Failed += f
	}
	for _, m := range cargoFailed.FindAllStringSubmatch(out, -1) {
		add(m[1])
	}
	// A go package line ("ok pkg") is tests that ran, counted or not.
	c.NoTests = c.Passed+c.Failed == 0 && noTestsSaid.MatchString(out) && !goPackage.MatchString(out)
	return c
}

// words reads "2 failed, 10 passed, 1 error" style counts.
func words(s string) (passed, failed int) {
	for _, m := range countWord.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		if m[2] == "passed" {
			passed += n
		} else {
			failed += n
		}
	}
	return passed, failed
}
