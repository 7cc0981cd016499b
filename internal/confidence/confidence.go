package confidence

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// MaxPoints are what the mechanical checks of one role are worth.
const MaxPoints = 70

// Check is one mechanical check and what it gave.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
	Detail string `json:"detail"`
	// Skipped: there was nothing to check (a project with nothing to
	// build). It neither passes nor fails: no points, and its Max is
	// left out of the score's.
	Skipped bool `json:"skipped,omitempty"`
}

// Mark is ✓ for a check that passed, ✗ for one that failed, – for one
// skipped.
func (c Check) Mark() string {
	switch {
	case c.Skipped:
		return "–"
	case c.OK:
		return "✓"
	}
	return "✗"
}

// OfMax is the score scaled to MaxPoints, for comparing scores whose
// skipped checks left different Max.
func (s Score) OfMax() int {
	if s.Max <= 0 {
		return 0
	}
	return (s.Points*MaxPoints + s.Max/2) / s.Max
}

// Failed are the names of the checks that failed (skipped ones aside).
func (s Score) Failed() []string {
	var out []string
	for _, c := range s.Checks {
		if !c.OK && !c.Skipped {
			out = append(out, c.Name)
		}
	}
	return out
}

// Score is a role's computed confidence: its checks' points out of
// MaxPoints.
type Score struct {
	Role   string  `json:"role"`
	Points int     `json:"points"`
	Max    int     `json:"max"`
	Checks []Check `json:"checks"`
}

// String is "58/70 (lint clean ✓, …)".
func (s Score) String() string {
	var parts []string
	for _, c := range s.Checks {
		if c.Skipped {
			parts = append(parts, fmt.Sprintf("%s – (%s)", c.Name, c.Detail))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s %d/%d", c.Name, c.Mark(), c.Points, c.Max))
	}
	return fmt.Sprintf("%d/%d (%s)", s.Points, s.Max, strings.Join(parts, ", "))
}

// score sums checks; a skipped check's points are out of the score's Max,
// so that what was checked is judged on its own.
func score(role string, checks ...Check) Score {
	s := Score{Role: role, Max: MaxPoints, Checks: checks}
	for _, c := range checks {
		s.Points += c.Points
		if c.Skipped {
			s.Max -= c.Max
		}
	}
	return s
}

// share gives max points for ok of all, in proportion.
func share(name string, max, ok, all int, detail string) Check {
	if all == 0 {
		return Check{Name: name, OK: true, Points: max, Max: max, Detail: detail}
	}
	return Check{Name: name, OK: ok == all, Points: max * ok / all, Max: max, Detail: detail}
}

func pass(name string, max int, ok bool, detail string) Check {
	c := Check{Name: name, OK: ok, Max: max, Detail: detail}
	if ok {
		c.Points = max
	}
	return c
}

// vagueRE are words that leave a task's reader to guess.
var vagueRE = regexp.MustCompile(`(?i)\b(as needed|as appropriate|appropriate(ly)?|properly|etc\.?|and so on|somehow|various|TBD|TODO|maybe|if possible|handle (it|this|errors) (well|correctly|properly))\b`)

// refRE are the paths a plan says to read: @path references.
var refRE = regexp.MustCompile(`(?:^|\s)@([\w./-]+\.[\w]+)`)

// Plan is what the architect's checks read of one of its plans: the text
// that may reference paths (its context and objective), and its tasks.
type Plan struct {
	Text  string
	Tasks []Task
}

// Task is one task of a plan, as the checks read it.
type Task struct {
	Action, ReadFirst, Verify string
	// Done is its done criteria, or its acceptance criteria.
	Done string
}

// Architect scores a phase's plans: the lint's errors, whether the paths
// the plans reference (@path, read_first) exist, whether every task has a
// verify and a done, and how many vague words the actions use.
func Architect(lintErrors []string, plans []Plan, exists func(string) bool) Score {
	var refs, missing []string
	tasks, complete, vague := 0, 0, 0
	for _, p := range plans {
		text := p.Text
		for _, t := range p.Tasks {
			text += "\n" + t.ReadFirst
			tasks++
			if strings.TrimSpace(t.Verify) != "" && strings.TrimSpace(t.Done) != "" {
				complete++
			}
			vague += len(vagueRE.FindAllString(t.Action, -1))
		}
		for _, m := range refRE.FindAllStringSubmatch(text, -1) {
			ref := path.Clean(m[1])
			refs = append(refs, ref)
			if !exists(ref) {
				missing = append(missing, ref)
			}
		}
	}
	lint := pass("plans lint clean", 20, len(lintErrors) == 0, fmt.Sprintf("%d lint error(s)", len(lintErrors)))
	refDetail := fmt.Sprintf("%d of %d referenced path(s) exist", len(refs)-len(missing), len(refs))
	if len(missing) > 0 {
		refDetail += "; missing: " + strings.Join(missing, ", ")
	}
	paths := share("referenced paths exist", 15, len(refs)-len(missing), len(refs), refDetail)
	criteria := share("tasks have verify and done", 20, complete, tasks, fmt.Sprintf("%d of %d task(s)", complete, tasks))
	// One vague word in every other task is tolerated; each beyond costs.
	allowed := (tasks + 1) / 2
	words := Check{Name: "few vague words", OK: vague <= allowed, Max: 15, Points: max(0, 15-5*max(0, vague-allowed)),
		Detail: fmt.Sprintf("%d vague word(s) in %d task(s)", vague, tasks)}
	return score("architect", lint, paths, criteria, words)
}

// Run is one run of the project's build or tests, as hive ran it.
type Run struct {
	// Ran is false when nothing ran to check: the project has no such
	// command, its runner found no test, or the workflow has no such
	// step. A command that could not start ran, and is not OK.
	Ran            bool
	OK             bool
	Passed, Failed int
	Command        string
	Output         string // its tail
}

// Implementer scores the implementers' work: the build and the tests in
// the run's worktree, the share of the plans' files_modified the change
// touched, and the TODO/FIXME lines the change added.
func Implementer(build, tests Run, planned, changed, added []string) Score {
	// Nothing to build is no evidence either way; no test run is a gap:
	// nothing shows that the change works.
	b := pass("build passes", 20, build.OK, runDetail(build, ""))
	if !build.Ran {
		b = Check{Name: "build passes", Max: 20, Skipped: true, Detail: "no build ran"}
	}
	t := pass("tests pass", 20, tests.Ran && tests.OK, runDetail(tests, "no test ran"))
	touched := 0
	var untouched []string
	for _, f := range planned {
		if slices.Contains(changed, f) {
			touched++
		} else {
			untouched = append(untouched, f)
		}
	}
	coverDetail := fmt.Sprintf("%d of %d planned file(s) changed", touched, len(planned))
	if len(untouched) > 0 {
		coverDetail += "; not: " + strings.Join(untouched, ", ")
	}
	if len(planned) == 0 {
		coverDetail = "no plan names files"
	}
	cover := share("changes cover the plans' files", 15, touched, len(planned), coverDetail)
	var todos []string
	for _, l := range added {
		if todoRE.MatchString(l) {
			todos = append(todos, strings.TrimSpace(l))
		}
	}
	todo := Check{Name: "no new TODO/FIXME", OK: len(todos) == 0, Max: 15, Points: max(0, 15-5*len(todos)),
		Detail: fmt.Sprintf("%d added", len(todos))}
	if len(todos) > 0 {
		todo.Detail += ": " + strings.Join(todos[:min(3, len(todos))], " | ")
	}
	return score("implementer", b, t, cover, todo)
}

var todoRE = regexp.MustCompile(`\b(TODO|FIXME|XXX|HACK)\b`)

func runDetail(r Run, none string) string {
	if !r.Ran {
		return none
	}
	d := r.Command + ": "
	if r.OK {
		d += "ok"
	} else {
		d += "failed"
	}
	if r.Passed+r.Failed > 0 {
		d += fmt.Sprintf(", %d passed, %d failed", r.Passed, r.Failed)
	}
	return d
}

// Tester scores the tests: that they ran and hive could read their
// results, their pass rate, and whether they touch the changed code (a
// changed test file, or output that names a changed file or folder).
func Tester(tests Run, changed []string) Score {
	counted := tests.Passed + tests.Failed
	ran := pass("tests ran and were read", 25, tests.Ran && counted > 0, runDetail(tests, "no test ran"))
	rate := share("pass rate", 25, tests.Passed, counted, fmt.Sprintf("%d of %d passed", tests.Passed, counted))
	if counted == 0 {
		rate = pass("pass rate", 25, false, "no test counted")
	}
	touch := false
	var why string
	for _, f := range changed {
		base := path.Base(f)
		switch {
		case IsTestFile(base):
			touch, why = true, "the change has the test "+f
		case strings.Contains(tests.Output, base) || (path.Dir(f) != "." && strings.Contains(tests.Output, path.Dir(f))):
			touch, why = true, "the test output names "+f
		}
		if touch {
			break
		}
	}
	if !touch {
		why = "no test file changed, and the output names no changed file"
	}
	return score("tester", ran, rate, pass("tests touch the change", 20, touch, why))
}

// IsTestFile says whether a file's base name is a test's, by the common
// conventions (Go, Python, JavaScript and TypeScript).
func IsTestFile(base string) bool {
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.")
}

// Finding is a reviewing role's finding, as far as the check needs it.
type Finding struct {
	File string
	Line int
}

// Reviewer scores findings: the share that cite a file that exists and a
// line within it (lines gives a file's line count and whether it exists).
func Reviewer(role string, findings []Finding, lines func(string) (int, bool)) Score {
	cited := 0
	var bad []string
	for _, f := range findings {
		n, ok := lines(f.File)
		if ok && f.Line <= n {
			cited++
		} else {
			bad = append(bad, fmt.Sprintf("%s:%d", f.File, f.Line))
		}
	}
	detail := fmt.Sprintf("%d of %d finding(s) cite a real file and line", cited, len(findings))
	if len(bad) > 0 {
		detail += "; not: " + strings.Join(bad, ", ")
	}
	if len(findings) == 0 {
		detail = "no finding to check"
	}
	return score(role, share("findings cite real files and lines", MaxPoints, cited, len(findings), detail))
}
