package roleplay_test

import (
	"encoding/json"
	"fmt"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/roleplay"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

// goRepo is a repository with a Go module: README.md, go.mod, main.go.
func goRepo(t *testing.T) string {
	t.Helper()
	dir := simtest.NewRepo(t)
	simtest.WriteFile(t, dir, "go.mod", "module example.com/svc\n\ngo 1.22\n")
	simtest.WriteFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	simtest.Git(t, dir, "add", "go.mod", "main.go")
	simtest.Git(t, dir, "commit", "-q", "-m", "a Go service")
	return dir
}

// rolePrompt is the start of a role's prompt as hive renders it: enough for
// the sim to know it plays a role, and the objective.
func rolePrompt(role, objective string) string {
	return "# Role: " + role + "\n\nYou are the " + role + " of a team of coding agents.\n\n## Objective\n\n" + objective + "\n\n## Phase 1: Your work\n\nDo it.\n"
}

// playAs runs the sim as role on job in dir with the extra environment,
// and returns its report as JSON fields.
func playAs(t *testing.T, dir, role, job string, env ...string) map[string]any {
	t.Helper()
	env = append([]string{"HIVE_AGENT_ROLE=" + role, "HIVE_AGENT_PLAN=" + job}, env...)
	p := simtest.Start(t, dir, env...)
	p.Send(rolePrompt(role, "add a health check endpoint"))
	texts, _ := p.Turn()
	p.Stdin.Close()
	texts = append(texts, p.Drain()...)
	if code := p.Wait(simtest.WaitLimit); code != 0 {
		t.Fatalf("%s exited %d: %q\nstderr:\n%s", role, code, texts, p.ErrText())
	}
	return reportFields(t, texts)
}

var reportBlock = regexp.MustCompile(`(?s)<!--HIVE_REPORT\n(.*?)\nHIVE_REPORT-->`)

// reportFields is the JSON of the HIVE_REPORT among texts. It reads the
// block itself rather than through protocol.Parse, which refuses a status
// it does not know, as the badreport fault writes.
func reportFields(t *testing.T, texts []string) map[string]any {
	t.Helper()
	for _, s := range texts {
		if m := reportBlock.FindStringSubmatch(s); m != nil {
			var r map[string]any
			if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
				t.Fatalf("%v:\n%s", err, s)
			}
			if r["status"] != "done" { // a good report is one hive reads, too
				simtest.Report(t, texts)
			}
			return r
		}
	}
	t.Fatalf("no HIVE_REPORT in %q", texts)
	return nil
}

func keys(m map[string]any) string {
	ks := slices.Sorted(maps.Keys(m))
	return strings.Join(ks, " ")
}

// Each role of the shell Hive is played, its report holding its contract's
// fields; the roles that commit do, the others leave the repository alone.
func TestEveryRolePlays(t *testing.T) {
	t.Run("implementer unchanged", func(t *testing.T) {
		r := playAs(t, goRepo(t), "implementer", "implementer")
		if keys(r) != "confidence files status summary" || r["status"] != "complete" {
			t.Errorf("report %v", r)
		}
	})
	t.Run("interviewer", func(t *testing.T) {
		dir := goRepo(t)
		head := simtest.Git(t, dir, "rev-parse", "HEAD")
		r := playAs(t, dir, "interviewer", "interviewer")
		qs, _ := r["questions"].([]any)
		if r["status"] != "complete" || len(qs) != 3 {
			t.Fatalf("report %v", r)
		}
		for _, q := range qs {
			q := q.(map[string]any)
			opts, _ := q["options"].([]any)
			if q["question"] == "" || len(opts) < 2 || !slices.Contains(opts, q["default"]) || q["why"] == "" {
				t.Errorf("question %v", q)
			}
		}
		if simtest.Git(t, dir, "rev-parse", "HEAD") != head || simtest.Git(t, dir, "status", "--porcelain") != "" {
			t.Error("the interviewer changed the repository")
		}
	})
	t.Run("debugger", func(t *testing.T) {
		dir := goRepo(t)
		r := playAs(t, dir, "debugger", "debugger")
		cause, _ := r["root_cause"].(string)
		file, rest, _ := strings.Cut(cause, ":")
		line, _, _ := strings.Cut(rest, ":")
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || r["reproduction"] != "go test ./..." || fmt.Sprint(strings.Count(string(data), "\n")) != line {
			t.Errorf("report %v (%v)", r, err)
		}
		if subject := simtest.Git(t, dir, "log", "-1", "--format=%s"); !strings.HasPrefix(subject, "fix(debugger): ") {
			t.Errorf("the fix's commit: %q", subject)
		}
		if simtest.Git(t, dir, "status", "--porcelain") != "" {
			t.Error("the fix is not all committed")
		}
	})
	t.Run("debugger fixes a failing test", func(t *testing.T) {
		dir := goRepo(t)
		simtest.WriteFile(t, dir, roleplay.FailingTest, "package main\n\nimport \"testing\"\n\n// fails\nfunc TestHiveSimFailing(t *testing.T) { t.Fatal(\"simulated failure\") }\n")
		simtest.Git(t, dir, "add", roleplay.FailingTest)
		simtest.Git(t, dir, "commit", "-q", "-m", "a failing test")
		texts, _ := simtest.RunToEnd(t, dir, rolePrompt("debugger", "make the tests pass")+"\n## Failing tests to fix\n\n--- FAIL: TestHiveSimFailing\n",
			"HIVE_AGENT_ROLE=debugger", "HIVE_AGENT_PLAN=debugger")
		r := reportFields(t, texts)
		if !strings.HasPrefix(fmt.Sprint(r["root_cause"]), roleplay.FailingTest+":6: ") {
			t.Errorf("root cause %v", r["root_cause"])
		}
		if _, err := os.Stat(filepath.Join(dir, roleplay.FailingTest)); err == nil {
			t.Error("the failing test is still there")
		}
	})
	for _, role := range []string{"reviewer", "security"} {
		t.Run(role, func(t *testing.T) {
			dir := goRepo(t)
			r := playAs(t, dir, role, role)
			if issues, ok := r["issues"].([]any); !ok || len(issues) != 0 || r["approval_status"] != "approved" || r["status"] != "complete" {
				t.Errorf("report %v", r)
			}
		})
	}
	for _, role := range []string{"e2e-tester", "component-tester"} {
		t.Run(role, func(t *testing.T) {
			r := playAs(t, goRepo(t), role, role)
			if keys(r) != "confidence failed files passed status summary tests_run tests_written" || r["failed"] != 0.0 {
				t.Errorf("report %v", r)
			}
		})
	}
	t.Run("browser-validator", func(t *testing.T) {
		dir := goRepo(t)
		r := playAs(t, dir, "browser-validator", "browser-validator", faults.EnvAttempt+"=2")
		shots, _ := r["screenshots"].([]any)
		if len(shots) != 1 || shots[0] != ".hive/screenshots/browser-validator-2.png" || r["issues"] == nil {
			t.Fatalf("report %v", r)
		}
		f, err := os.Open(filepath.Join(dir, ".hive/screenshots/browser-validator-2.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := png.Decode(f); err != nil {
			t.Errorf("the screenshot is no PNG: %v", err)
		}
		if out := simtest.Git(t, dir, "log", "--all", "--format=%s", "--", ".hive"); out != "" {
			t.Errorf("the screenshot was committed: %s", out)
		}
	})
	t.Run("migrator", func(t *testing.T) {
		dir := goRepo(t)
		simtest.WriteFile(t, dir, "migrations/001_init.up.sql", "CREATE TABLE t (id INTEGER);\n")
		simtest.Git(t, dir, "add", "migrations")
		simtest.Git(t, dir, "commit", "-q", "-m", "first migration")
		want := []any{"migrations/002_add_a_health_check_endpoint.up.sql", "migrations/002_add_a_health_check_endpoint.down.sql"}
		for attempt := 1; attempt <= 2; attempt++ { // a retry writes the same migration again
			r := playAs(t, dir, "migrator", "migrator", fmt.Sprintf("%s=%d", faults.EnvAttempt, attempt))
			if !slices.Equal(r["migration_files"].([]any), want) || r["reversible"] != true {
				t.Fatalf("attempt %d: report %v", attempt, r)
			}
		}
		up, _ := os.ReadFile(filepath.Join(dir, "migrations/002_add_a_health_check_endpoint.up.sql"))
		down, _ := os.ReadFile(filepath.Join(dir, "migrations/002_add_a_health_check_endpoint.down.sql"))
		if !strings.Contains(string(up), "CREATE TABLE hive_sim_add_a_health_check_endpoint") || !strings.Contains(string(down), "DROP TABLE hive_sim_add_a_health_check_endpoint;") {
			t.Errorf("up:\n%s\ndown:\n%s", up, down)
		}
		if simtest.Git(t, dir, "status", "--porcelain") != "" || simtest.Git(t, dir, "rev-list", "--count", "HEAD") != "4" {
			t.Error("the migration is not committed once")
		}
	})
}

// The blocker fault: the reviewer (or the auditor) finds one blocker at
// line 1 of a real file and requests changes, on the attempt it names.
func TestBlockerFault(t *testing.T) {
	for _, c := range []struct{ role, file string }{{"reviewer", "main.go"}, {"security", "main.go"}, {"browser-validator", "main.go"}, {"reviewer", "README.md"}} {
		t.Run(c.role+" "+c.file, func(t *testing.T) {
			dir := simtest.NewRepo(t)
			if c.file == "main.go" {
				dir = goRepo(t)
			}
			blocker := faults.EnvFaults + "=" + c.role + "=blocker#1"
			r := playAs(t, dir, c.role, c.role, blocker)
			issues, _ := r["issues"].([]any)
			if len(issues) != 1 {
				t.Fatalf("report %v", r)
			}
			issue := issues[0].(map[string]any)
			if issue["severity"] != "blocker" || issue["file"] != c.file || issue["line"] != 1.0 || issue["title"] == "" || issue["suggestion"] == "" {
				t.Errorf("issue %v", issue)
			}
			if _, err := os.Stat(filepath.Join(dir, c.file)); err != nil {
				t.Errorf("the issue's file: %v", err)
			}
			if want := map[bool]any{true: "changes_requested", false: nil}[c.role != "browser-validator"]; r["approval_status"] != want {
				t.Errorf("approval %v, want %v", r["approval_status"], want)
			}
			if r := playAs(t, dir, c.role, c.role, blocker, faults.EnvAttempt+"=2"); len(r["issues"].([]any)) != 0 {
				t.Errorf("attempt 2 still finds %v", r["issues"])
			}
		})
	}
}

// The badreport fault: a role that lists issues leaves out its approval and
// a severity; any other role says "done" with no summary, after its work.
func TestBadReportFault(t *testing.T) {
	dir := goRepo(t)
	r := playAs(t, dir, "reviewer", "reviewer", faults.EnvFaults+"=reviewer=badreport")
	issue := r["issues"].([]any)[0].(map[string]any)
	if r["status"] != "complete" || r["approval_status"] != nil || issue["severity"] != nil || issue["file"] == nil {
		t.Errorf("reviewer's bad report %v", r)
	}
	head := simtest.Git(t, dir, "rev-parse", "HEAD")
	r = playAs(t, dir, "implementer", "implementer", faults.EnvFaults+"=implementer=badreport")
	if r["status"] != "done" || r["summary"] != nil {
		t.Errorf("implementer's bad report %v", r)
	}
	if simtest.Git(t, dir, "rev-parse", "HEAD") == head {
		t.Error("the implementer did no work")
	}
}
