package roleplay

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
	"github.com/hivectl/hive/internal/sim/session"
)

// failingTest is the test a failing sim tester adds, for a Go project.
const failingTest = "hive_sim_failing_test.go"

// uncommittedFile is what a role with faults.FaultUncommitted leaves
// uncommitted.
const uncommittedFile = "hive_sim_uncommitted.txt"

var (
	objectiveRE = regexp.MustCompile(`(?s)## Objective\n\n(.*?)\n\n`)
	phaseDirRE  = regexp.MustCompile("Write one phase of plans under `([^`]+)/`")
	previousRE  = regexp.MustCompile(`"challenged_agent": "\[one of: ([^\]]+)\]"`)
)

// IsPipelineRole says whether the prompt is one of hive run's role prompts.
func IsPipelineRole(prompt string) bool {
	return strings.HasPrefix(strings.TrimSpace(prompt), "# Role: ")
}

// playRole plays a role of hive run: the architect writes a phase of two
// independent plans, an implementer makes the fixes it is asked for, a
// tester may add a failing test, the documenter documents; the newer roles
// do what roleplay.go says. Each commits what it did and ends with a
// HIVE_REPORT that holds its contract's fields.
func (a *agent) playRole(prompt string) error {
	role := a.Set.Role
	job := os.Getenv("HIVE_AGENT_PLAN")
	fs := a.Set.ForPlan(job)
	objective := "the objective"
	if m := objectiveRE.FindStringSubmatch(prompt); m != nil {
		objective = strings.TrimSpace(m[1])
	}
	report := func(r map[string]any) error {
		b, _ := json.MarshalIndent(r, "", "  ")
		a.Out.Text(fmt.Sprintf("%s done.\n\n<!--HIVE_REPORT\n%s\nHIVE_REPORT-->", role, b))
		// Before the turn ends: the caller may close stdin as soon as it
		// reads the result line, and that must be a clean end.
		a.SetEOFExit(0)
		a.Out.EndTurn()
		return nil
	}
	// A role is one task: it takes HIVE_SIM_DELAY, as a real agent's turn
	// takes its time (ten times as long, faults.SlowBase at least, when slow).
	delay := a.Set.Delay
	if fs.Has(faults.FaultSlow) {
		delay = 10 * max(delay, faults.SlowBase)
	}
	time.Sleep(delay)
	if name := os.Getenv(faults.EnvSayEnv); name != "" {
		if v, ok := os.LookupEnv(name); ok {
			a.Out.Text(fmt.Sprintf("env %s=%s", name, v))
		} else {
			a.Out.Text(fmt.Sprintf("env %s unset", name))
		}
	}
	switch {
	case fs.Has(faults.FaultHang):
		a.Hang()
	case fs.Has(faults.FaultCrash):
		fmt.Fprintf(a.Log, "hive sim: simulated crash of %s\n", role)
		a.Exit(3)
		return session.ErrExited
	case fs.Has(faults.FaultLimit):
		fmt.Fprintf(a.Log, "hive sim: simulated usage limit of %s, reset in %s\n", role, a.Set.LimitReset)
		a.Out.LimitReached(time.Now().Add(a.Set.LimitReset))
		a.Exit(1)
		return session.ErrExited
	case fs.Has(faults.FaultChallenge):
		to := "architect"
		if m := previousRE.FindStringSubmatch(prompt); m != nil {
			names := strings.Split(m[1], ", ")
			to = names[len(names)-1]
		}
		return report(map[string]any{"status": "challenge", "challenged_agent": to,
			"issue": "simulated: the " + to + "'s work misses part of " + objective, "evidence": "the sim says so",
			"suggestion": "cover all of the objective", "severity": "blocking"})
	case fs.Has(faults.FaultNeedsInput):
		return report(map[string]any{"status": "needs_input", "blocker": "simulated: which way should " + role + " go?",
			"options": []string{"the simple way", "the thorough way"}, "can_proceed_with_default": false, "default_choice": "the simple way"})
	case fs.Has(faults.FaultBlocked):
		return report(map[string]any{"status": "blocked", "blocker": "simulated: " + role + " cannot go on"})
	}
	var files []string
	var err error
	saw := ""                  // what the role saw, for its summary
	fields := map[string]any{} // what the role's contract adds to its report
	switch role {
	case "architect":
		files, err = a.writePlans(prompt, objective)
	case "implementer", "ui-designer":
		files, err = a.implement(prompt, objective)
		saw = pullRequestSignals(prompt)
	case "debugger":
		files, fields, err = a.debug(prompt, objective)
	case "interviewer":
		fields["questions"] = interview(objective)
	case "planner":
		if !fs.Has(faults.FaultEmpty) {
			fields = plannerAnswer(objective)
		}
	case "evaluator":
		fields = evaluatorVerdict(job, fs)
	case "postmortem":
		fields["narrative"] = "Simulated postmortem of " + objective + ": the run did what it set out to do."
	case "reviewer", "security":
		fields, err = a.review(fs)
	case "browser-validator":
		fields, err = a.validateInBrowser(job, fs)
	case "e2e-tester", "component-tester":
		// No browser in the sim: it writes no test and runs none.
		fields = map[string]any{"tests_written": []string{}, "tests_run": 0, "passed": 0, "failed": 0}
	case "migrator":
		files, fields, err = a.migrate(objective)
	case "tester":
		if (fs.Has(faults.FaultFail) || fs.Has(faults.FaultFindsBug) && !a.inHistory(failingTest)) && a.isGo() {
			files, err = a.writeFile(failingTest, "package main\n\nimport \"testing\"\n\n// Added by the sim tester: fails until an implementer fixes it.\nfunc TestHiveSimFailing(t *testing.T) { t.Fatal(\"simulated failure\") }\n")
		}
		if err == nil && a.isGo() {
			// The tester runs the project's tests itself, as a real one
			// would, and says what it saw; hive runs them again after it.
			saw = "; go test ./...: " + a.goTest()
		}
	case "documenter":
		files, err = a.appendLine("README.md", "- "+objective+" (documented by the hive sim)")
		if l := proposeLearnings(prompt); l != nil {
			fields["learnings"] = l
		}
	}
	if err != nil {
		return err
	}
	if fs.Has(faults.FaultBlocker) && !findsIssues(role) {
		fmt.Fprintf(a.Log, "hive sim: the blocker fault does nothing to %s, whose report lists no issues\n", role)
	}
	if len(files) > 0 {
		kind := map[string]string{"architect": "docs", "tester": "test", "documenter": "docs", "debugger": "fix"}[role]
		if kind == "" {
			kind = "feat"
		}
		msg := fmt.Sprintf("%s(%s): %s", kind, job, repo.OneLine(objective, 60))
		if err := a.commitPaths(msg, files); err != nil {
			return err
		}
	}
	if fs.Has(faults.FaultUncommitted) {
		if _, err := a.writeFile(uncommittedFile, "left uncommitted by the sim "+role+"\n"); err != nil {
			return err
		}
	}
	r := map[string]any{"status": "complete", "summary": fmt.Sprintf("simulated %s work on: %s%s", role, objective, saw), "confidence": 0.9, "files": files}
	maps.Copy(r, fields)
	if fs.Has(faults.FaultBadReport) {
		r = badReport(r)
	}
	return report(r)
}

// simPlan is one plan the sim architect writes: its file and what goes in it.
type simPlan struct {
	wave     int
	deps     []string
	file     string
	code     string // the file's content, in the task's action; "" for a marker
	contains string // a line the file must contain (must_haves)
}

// writePlans writes the phase the prompt names. In a Go project: the
// objective's code (an HTTP handler when it asks for an endpoint, a
// function otherwise) and its documentation, independent, then a test of
// the code that depends on it, each with the real code in its task for
// the sim executor to write; elsewhere two independent plans of marker
// files.
func (a *agent) writePlans(prompt, objective string) ([]string, error) {
	m := phaseDirRE.FindStringSubmatch(prompt)
	if m == nil {
		return nil, fmt.Errorf("the architect's prompt names no phase folder")
	}
	dir := m[1]
	base := filepath.Base(dir)
	num, slug, _ := strings.Cut(base, "-")
	file := strings.ReplaceAll(slug, "-", "_")
	var plans []simPlan
	if a.isGo() {
		code, test, fn := goCode(repo.GoPackageFor(a.Dir, file+".go"), slug, objective)
		plans = []simPlan{
			{wave: 1, file: file + ".go", code: code, contains: "func " + fn},
			{wave: 1, file: "docs/" + slug + ".md", code: "# " + objective + "\n\nSee " + file + ".go.\n", contains: "# " + repo.OneLine(objective, 200)},
			{wave: 2, deps: []string{num + "-01"}, file: file + "_test.go", code: test, contains: "func Test"},
		}
	} else {
		plans = []simPlan{{wave: 1, file: file + ".md"}, {wave: 1, file: file + "_extra.md"}}
	}
	var files []string
	for i, p := range plans {
		id := fmt.Sprintf("%s-%02d", num, i+1)
		action := "Write " + p.file + " for: " + repo.OneLine(objective, 80)
		if p.code != "" {
			action += ":\n\n``` whole-file\n" + p.code + "```\n"
		}
		contains := ""
		if p.contains != "" {
			contains = fmt.Sprintf("\n      contains: %q", p.contains)
		}
		deps := ""
		if len(p.deps) > 0 {
			deps = `"` + strings.Join(p.deps, `", "`) + `"`
		}
		body := fmt.Sprintf(`---
phase: %s
plan: %02d
type: execute
wave: %d
depends_on: [%s]
files_modified: [%s]
autonomous: true
must_haves:
  truths:
    - "%s exists"
  artifacts:
    - path: "%s"
      provides: "part %d of: %s"%s
---

<objective>
Part %d of: %s
</objective>

<tasks>
<task type="auto">
  <name>Task 1: write %s</name>
  <files>%s</files>
  <action>%s</action>
  <verify>the project builds and its tests pass</verify>
  <done>%s exists</done>
</task>
</tasks>
`, base, i+1, p.wave, deps, p.file, p.file, p.file, i+1, repo.OneLine(objective, 80), contains, i+1, objective, p.file, p.file, action, p.file)
		written, err := a.writeFile(fmt.Sprintf("%s/%s-PLAN.md", dir, id), body)
		if err != nil {
			return nil, err
		}
		files = append(files, written...)
	}
	return files, nil
}

// goCode is the code and test of an objective in Go package pkg: an HTTP
// handler answering 200 when the objective asks for an endpoint, else a
// function that names the objective. fn is the function's name.
func goCode(pkg, slug, objective string) (code, test, fn string) {
	camel := ""
	for _, w := range strings.Split(slug, "-") {
		if w != "" {
			camel += strings.ToUpper(w[:1]) + w[1:]
		}
	}
	lower := strings.ToLower(objective)
	if strings.Contains(lower, "endpoint") || strings.Contains(lower, "route") || strings.Contains(lower, "handler") {
		fn = "handle" + camel
		code = fmt.Sprintf("package %s\n\nimport \"net/http\"\n\n// %s answers GET /%s (%s).\nfunc %s(w http.ResponseWriter, _ *http.Request) {\n\tw.WriteHeader(http.StatusOK)\n\tw.Write([]byte(\"ok\\n\"))\n}\n",
			pkg, fn, slug, repo.OneLine(objective, 80), fn)
		test = fmt.Sprintf("package %s\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc Test%s(t *testing.T) {\n\tw := httptest.NewRecorder()\n\t%s(w, httptest.NewRequest(http.MethodGet, \"/%s\", nil))\n\tif w.Code != http.StatusOK {\n\t\tt.Fatalf(\"status %%d, want 200\", w.Code)\n\t}\n}\n",
			pkg, strings.ToUpper(fn[:1])+fn[1:], fn, slug)
		return code, test, fn
	}
	fn = strings.ToLower(camel[:1]) + camel[1:]
	code = fmt.Sprintf("package %s\n\n// %s names what it was written for.\nfunc %s() string { return %q }\n", pkg, fn, fn, repo.OneLine(objective, 80))
	test = fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc Test%s(t *testing.T) {\n\tif %s() == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n", pkg, camel, fn)
	return code, test, fn
}

// implement makes an implementer's change: with failing tests to fix, it
// removes the sim tester's failing test; otherwise it adds a line to a file
// named after the objective.
func (a *agent) implement(prompt, objective string) ([]string, error) {
	if strings.Contains(prompt, "## Failing tests to fix") {
		if _, err := os.Stat(filepath.Join(a.Dir, failingTest)); err == nil {
			if _, err := a.Git.Run("rm", "-q", "--", failingTest); err != nil {
				return nil, err
			}
			if _, err := a.Git.Run("commit", "-q", "--no-verify", "-m", "fix: the failing test", "--", failingTest); err != nil {
				return nil, err
			}
			return nil, nil
		}
		if strings.Contains(prompt, "TestHiveSimFailing") {
			// Already fixed: an earlier attempt, cut off from hive (killed
			// with it), went on and committed the fix. A real implementer
			// finds the tests passing and changes nothing either.
			return nil, nil
		}
	}
	name := "hive_sim_change.go"
	if !a.isGo() {
		name = "HIVE_SIM_CHANGE.md"
	}
	ref := fmt.Sprintf("%s/%d", os.Getenv("HIVE_AGENT_PLAN"), a.Set.Attempt)
	if run := os.Getenv("HIVE_RUN"); run != "" { // each run of hive run notes its change
		ref = "run " + run + " " + ref
	}
	if _, err := repo.TouchFile(a.Dir, name, ref, objective); err != nil {
		return nil, err
	}
	files := []string{name}
	// The project's conventions the sim does not know: a failing test that
	// says "not listed in FILE: TEXT" is fixed by listing it; a warning
	// from earlier runs that names a list (a .txt file of the project) is
	// heeded by listing the objective there first.
	var lists [][2]string
	for _, m := range notListedRE.FindAllStringSubmatch(prompt, -1) {
		lists = append(lists, [2]string{m[1], m[2]})
	}
	if _, warnings, ok := strings.Cut(prompt, "## Warnings from earlier runs"); ok {
		warnings, _, _ = strings.Cut(warnings, "\n## ")
		for _, m := range warnedListRE.FindAllStringSubmatch(warnings, -1) {
			if _, err := os.Stat(filepath.Join(a.Dir, m[1])); err == nil {
				lists = append(lists, [2]string{m[1], objective})
			}
		}
	}
	for _, l := range lists {
		more, err := a.appendLine(l[0], strings.TrimSpace(l[1]))
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

// evaluatorVerdict is the sim evaluator's verdict on job
// (evaluate-JOB-ASPECT): ok, unless a fault says warn or block.
func evaluatorVerdict(job string, fs faults.Active) map[string]any {
	switch {
	case fs.Has(faults.FaultBlock):
		return map[string]any{"verdict": "block", "notes": []string{"simulated: a blocking gap found by " + job}}
	case fs.Has(faults.FaultWarn):
		return map[string]any{"verdict": "warn", "notes": []string{"simulated: a concern found by " + job}}
	}
	return map[string]any{"verdict": "ok", "notes": []string{}}
}

// plannerAnswer is the sim planner's answer: the implementer alone for a typo or
// a one-line change, a fuller team for anything else.
func plannerAnswer(objective string) map[string]any {
	if regexp.MustCompile(`(?i)\b(typos?|spelling|one-line)\b`).MatchString(objective) {
		return map[string]any{"roles": []string{"implementer"}, "reasoning": "simulated: a change of a word needs the implementer alone"}
	}
	return map[string]any{"roles": []string{"architect", "implementer", "tester", "reviewer"}, "parallel": [][]string{{"tester", "reviewer"}},
		"reasoning": "simulated: new behaviour across files: plan, build, then test and review side by side"}
}

// proposeLearnings is the sim documenter's advice: for each lesson hive
// lists under "What this run got wrong, then fixed", one learning that
// names its files, and one piece of general advice, which hive should
// not keep.
func proposeLearnings(prompt string) []string {
	_, section, ok := strings.Cut(prompt, "## What this run got wrong, then fixed")
	if !ok {
		return nil
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, line := range strings.Split(section, "\n") {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		what, files, ok := strings.Cut(text, "; files: ")
		if !ok {
			continue
		}
		out = append(out, "Keep "+files+" in step with every change here: "+what)
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, "Prefer small, focused commits.")
}

var (
	// notListedRE is a failing test's "not listed in FILE: TEXT".
	notListedRE = regexp.MustCompile(`not listed in ([\w./-]+\.txt): ([^\n]+)`)
	// warnedListRE is a .txt file a warning names.
	warnedListRE = regexp.MustCompile(`([\w./-]+\.txt)`)
)

func (a *agent) isGo() bool {
	_, err := os.Stat(filepath.Join(a.Dir, "go.mod"))
	return err == nil
}

// writeFile writes rel (checked to stay inside the repository) and
// returns it to commit.
func (a *agent) writeFile(rel, body string) ([]string, error) {
	clean, err := repo.CheckPath(a.Dir, a.RealDir, rel)
	if err != nil {
		return nil, err
	}
	abs := filepath.Join(a.Dir, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	return []string{clean}, os.WriteFile(abs, []byte(body), 0o644)
}

// inHistory says whether a commit of the branch touched rel.
func (a *agent) inHistory(rel string) bool {
	out, err := a.Git.Run("log", "-1", "--format=%H", "--", rel)
	return err == nil && strings.TrimSpace(out) != ""
}

// appendLine adds line to rel unless it is there.
func (a *agent) appendLine(rel, line string) ([]string, error) {
	clean, err := repo.CheckPath(a.Dir, a.RealDir, rel)
	if err != nil {
		return nil, err
	}
	abs := filepath.Join(a.Dir, filepath.FromSlash(clean))
	old, _ := os.ReadFile(abs)
	if strings.Contains(string(old), line) {
		return nil, nil
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	return []string{clean}, os.WriteFile(abs, append(old, line+"\n"...), 0o644)
}

// commitPaths commits exactly paths, unless they hold no change.
func (a *agent) commitPaths(msg string, paths []string) error {
	if _, err := a.Git.Run(append([]string{"add", "-f", "--"}, paths...)...); err != nil {
		return err
	}
	if out, err := a.Git.Run(append([]string{"status", "--porcelain", "--"}, paths...)...); err != nil || out == "" {
		return err
	}
	_, err := a.Git.Run(append([]string{"commit", "-q", "--no-verify", "-m", msg, "--"}, paths...)...)
	return err
}

// goTest runs the project's Go tests (an argument list, no shell) and
// sums up the outcome in a line. It runs them as hive's check does (go
// test -v), so that the check that follows, on the same code, replays go's
// cached result instead of building and running them again.
func (a *agent) goTest() string {
	cmd := exec.CommandContext(a.Ctx, "go", "test", "-v", "./...")
	cmd.Dir = a.Dir
	out, err := cmd.CombinedOutput()
	last := strings.TrimSpace(string(out))
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if err != nil {
		return "FAIL (" + repo.OneLine(last, 100) + ")"
	}
	return "ok (" + repo.OneLine(last, 100) + ")"
}

// The sections of a prompt that hand an implementer a pull request's
// failed CI checks and review comments (hive run --follow), and what in
// them the sim names in its summary.
var (
	ciFailRE  = regexp.MustCompile(`--- FAIL: (\S+)`)
	commentRE = regexp.MustCompile("(?m)^- `([^`]+)`:")
)

// pullRequestSignals says, for the implementer's summary, which failing
// tests of the pull request's CI and which review comments the prompt gave
// it: "" when none. hive posts the summary on the threads it answers.
func pullRequestSignals(prompt string) string {
	var parts []string
	if _, ci, ok := strings.Cut(prompt, "## CI fails on the pull request"); ok {
		ci, _, _ = strings.Cut(ci, "\n## ")
		for _, m := range ciFailRE.FindAllStringSubmatch(ci, -1) {
			parts = append(parts, "the failing "+m[1])
		}
	}
	if _, review, ok := strings.Cut(prompt, "## Review comments on the pull request"); ok {
		review, _, _ = strings.Cut(review, "\n## ")
		for _, m := range commentRE.FindAllStringSubmatch(review, -1) {
			parts = append(parts, "the comment on "+m[1])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; fixed " + strings.Join(parts, ", ")
}
