package claude_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// The model's side of hive run: the fake server plays each role the real
// Claude Code CLI is started as. The architect writes two plans: the health
// endpoint with its test, and its documentation; the implementers carry
// them out in their worktrees; the other roles report.

var (
	roleRe     = regexp.MustCompile(`(?m)^# Role: (\S+)`)
	phaseDirRe = regexp.MustCompile("Write one phase of plans under `([^`]+)/`")
	runPlanRe  = regexp.MustCompile(`- Plan: (\.planning/phases/[^\s]+)/(\d+-\d+)-PLAN\.md`)
	healthGo   = "package main\n\nimport \"net/http\"\n\n// health answers 200 while the service runs.\nfunc health(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }\n"
	healthTest = "package main\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestHealth(t *testing.T) {\n\tw := httptest.NewRecorder()\n\thealth(w, httptest.NewRequest(http.MethodGet, \"/healthz\", nil))\n\tif w.Code != http.StatusOK {\n\t\tt.Fatalf(\"status %d\", w.Code)\n\t}\n}\n"
	healthDoc  = "# Health check\n\nGET /healthz answers 200 while the service runs.\n"
	planFiles  = map[string][][2]string{"01": {{"health.go", healthGo}, {"health_test.go", healthTest}}, "02": {{"docs/health.md", healthDoc}}}
	// Every role reports as its contract asks (the reviewer's issues and
	// approval are ignored by the others' contracts).
	hiveReport  = "<!--HIVE_REPORT\n{\"status\": \"complete\", \"summary\": \"%s did its part\", \"confidence\": 0.9, \"issues\": [], \"approval_status\": \"approved\"}\nHIVE_REPORT-->"
	reportOnly  = func(role string) fa.Reply { return fa.Text(fmt.Sprintf(hiveReport, role)) }
	commitPaths = func(msg string, paths ...string) string {
		return retry("git add -- " + strings.Join(paths, " ") + " && git commit -q -m " + fmt.Sprintf("%q", msg) + " -- " + strings.Join(paths, " "))
	}
)

func pipelinePlan(phase, num string) string {
	var files, tasks []string
	for i, f := range planFiles[num] {
		files = append(files, f[0])
		tasks = append(tasks, fmt.Sprintf("<task type=\"auto\">\n  <name>Task %d: write %s</name>\n  <files>%s</files>\n  <action>Write %s.</action>\n  <done>%s exists</done>\n</task>", i+1, f[0], f[0], f[0], f[0]))
	}
	return fmt.Sprintf("---\nphase: %s\nplan: %s\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [%s]\nautonomous: true\n---\n\n<objective>\nPart %s of the health check.\n</objective>\n\n<tasks>\n%s\n</tasks>\n",
		phase, num, strings.Join(files, ", "), num, strings.Join(tasks, "\n"))
}

// roleRule plays every role: the architect's and the executors' turns
// step by step, the others with their report.
func roleRule(t *testing.T, root string) fa.Rule {
	return fa.Rule{
		Name: "roles",
		Match: func(c *fa.Conversation) bool {
			first := firstUserText(c)
			return roleRe.MatchString(first) || runPlanRe.MatchString(first)
		},
		Reply: func(c *fa.Conversation) fa.Reply {
			first := firstUserText(c)
			_, k := lastPrompt(c)
			var steps []fa.Reply
			if m := runPlanRe.FindStringSubmatch(first); m != nil {
				dir, id := m[1], m[2]
				num := id[strings.Index(id, "-")+1:]
				for n, f := range planFiles[num] {
					steps = append(steps, fa.Write(inCwd(c, root, f[0]), f[1]),
						fa.Bash(commitCmd(id, n+1, fmt.Sprintf("feat(%s): %s", id, f[0]), "", f[0], false)))
				}
				summary := fmt.Sprintf("%s/%s-SUMMARY.md", dir, id)
				steps = append(steps,
					fa.Write(inCwd(c, root, summary), fmt.Sprintf("---\nphase: %s\nplan: %s\n---\n# Plan %s\n\n## Self-Check: PASSED\n", filepath.Base(dir), num, id)),
					fa.Bash(commitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)),
					fa.Text(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s", id, len(planFiles[num]), len(planFiles[num]), summary)))
			} else {
				role := roleRe.FindStringSubmatch(first)[1]
				switch role {
				case "architect":
					dir := phaseDirRe.FindStringSubmatch(first)[1]
					phase := filepath.Base(dir)
					number, _, _ := strings.Cut(phase, "-")
					var paths []string
					for _, num := range []string{"01", "02"} {
						rel := fmt.Sprintf("%s/%s-%s-PLAN.md", dir, number, num)
						paths = append(paths, rel)
						steps = append(steps, fa.Write(inCwd(c, root, rel), pipelinePlan(phase, num)))
					}
					steps = append(steps, fa.Bash(commitPaths("docs: plans for the health check", paths...)), reportOnly(role))
				default:
					steps = append(steps, reportOnly(role))
				}
			}
			if k >= len(steps) {
				t.Errorf("no scripted reply %d for %q", k, clipS(first, 60))
				return fa.Text("the script ran out")
			}
			return steps[k]
		},
	}
}

// TestPipelineWithClaude runs hive run's full workflow with the real Claude
// Code CLI playing every role against the fake model server: the plans it
// writes are linted and run by parallel executors, the project's tests
// pass, and the endpoint with its test reaches main. Each role runs on its
// own model (models.ROLE): the server sees the architect's requests on
// one, the implementers' on another, the other roles' on the default.
func TestPipelineWithClaude(t *testing.T) {
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{
		"go.mod":  "module example.com/svc\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"net/http\"\n\nfunc main() { http.ListenAndServe(\":8080\", nil) }\n",
	})
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{roleRule(t, root)}})
	env := e2etest.ClaudeEnv(srv.URL(), t.TempDir())
	launcher := agent.Claude{Path: bin, Env: env, Model: "claude-sonnet-5-5"}
	roles := map[string]agent.Launcher{
		pipeline.RoleArchitect:   agent.Claude{Path: bin, Env: env, Model: "claude-opus-5-5"},
		pipeline.RoleImplementer: agent.Claude{Path: bin, Env: env, Model: "claude-haiku-5-5"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: repo, Journal: journal.NewMemory(), Objective: "add a health check endpoint", Workflow: classic,
		Launcher: launcher, Roles: roles, AutoAnswer: true, MaxConcurrent: 2, Stall: 30 * time.Second,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	var jobs []string
	for _, j := range s.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s=%s/%d", j.ID, j.State, j.Attempts))
	}
	if got := strings.Join(jobs, " "); s.Outcome != pipeline.OutcomeComplete || !res.Merged ||
		got != "architect=done/1 implementers=done/1 comb=done/1 tester=done/1 reviewer=done/1 documenter=done/1" {
		t.Fatalf("outcome %s merged %v jobs %s notes %q", s.Outcome, res.Merged, got, res.Notes)
	}
	if s.Tests == nil || s.Tests.ExitCode != 0 || s.Tests.Passed < 1 {
		t.Errorf("tests: %+v", s.Tests)
	}
	for _, f := range []string{"health.go", "health_test.go", "docs/health.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("main lacks %s: %v", f, err)
		}
	}
	if st := e2etest.Dirty(t, root); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	models := map[string]map[string]bool{} // who → the models its requests named
	for _, r := range srv.MainRequests() {
		first := firstUserText(r.Conv)
		who := "?"
		if m := roleRe.FindStringSubmatch(first); m != nil {
			who = m[1]
		} else if runPlanRe.MatchString(first) {
			who = "executor"
		}
		if models[who] == nil {
			models[who] = map[string]bool{}
		}
		models[who][r.Conv.Model] = true
	}
	for who, want := range map[string]string{"architect": "claude-opus-5-5", "executor": "claude-haiku-5-5",
		"tester": "claude-sonnet-5-5", "reviewer": "claude-sonnet-5-5", "documenter": "claude-sonnet-5-5"} {
		if got := models[who]; len(got) != 1 || !got[want] {
			t.Errorf("%s's requests named %v, want %s only", who, got, want)
		}
	}
}

// TestRoleLoopGuardWithClaude: the real Claude Code plays a tester that
// runs the same command again and again; the loop guard sees its calls in
// the stream, interrupts it at the fifth, and the run stops for the human
// with the loop named. The calls are journaled as fingerprints.
func TestRoleLoopGuardWithClaude(t *testing.T) {
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{"go.mod": "module example.com/svc\n\ngo 1.22\n"})
	loop := fa.Rule{
		Name:  "tester loops",
		Match: func(c *fa.Conversation) bool { return isTester(c) },
		Reply: func(*fa.Conversation) fa.Reply { return fa.Bash("git status --short") },
	}
	others := fa.Rule{
		Name:  "other roles",
		Match: func(c *fa.Conversation) bool { return roleRe.MatchString(firstUserText(c)) },
		Reply: func(c *fa.Conversation) fa.Reply { return reportOnly(roleRe.FindStringSubmatch(firstUserText(c))[1]) },
	}
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{loop, others}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	j := journal.NewMemory()
	_, err := piperun.Run(ctx, piperun.Options{
		Repo: e2etest.OpenRepo(ctx, t, root), Journal: j, Objective: "add a health check endpoint", Workflow: pipeline.Quick,
		Launcher: agent.Claude{Path: bin, Env: e2etest.ClaudeEnv(srv.URL(), t.TempDir())}, AutoAnswer: true,
		Stall: 30 * time.Second, WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	var needs *piperun.NeedsHumanError
	if !errors.As(err, &needs) || needs.Checkpoint.Job != pipeline.RoleTester ||
		!strings.Contains(needs.Checkpoint.Question, "loop guard: the agent made the same call 5 times in a row (Bash git status --short)") {
		t.Fatalf("Run = %v, want the tester stopped by the loop guard", err)
	}
	calls := 0
	for _, r := range srv.MainRequests() {
		if isTester(r.Conv) {
			calls++
		}
	}
	if calls > 6 {
		t.Errorf("the tester made %d requests: the interrupt at the fifth call did not stop it", calls)
	}
	runs, _ := j.Runs()
	recs, _ := j.Events(runs[0].ID, 1)
	journaled := 0
	for _, rec := range recs {
		if rec.Type == string(pipeline.EvToolCall) {
			journaled++
			if !regexp.MustCompile(`"text":"[0-9a-f]{16} git status --short"`).Match(rec.Payload) {
				t.Errorf("a tool call journaled as %s, want its fingerprint", rec.Payload)
			}
		}
	}
	if journaled != 5 {
		t.Errorf("%d tool calls journaled, want the 5 the guard saw", journaled)
	}
}

func isTester(c *fa.Conversation) bool {
	m := roleRe.FindStringSubmatch(firstUserText(c))
	return m != nil && m[1] == "tester"
}

// classic is the full workflow one role after another, as the fake model
// scripts it.
var classic = pipeline.Workflow{Name: "classic", Steps: []pipeline.Step{{Role: pipeline.RoleArchitect}, {Role: pipeline.RoleImplementer},
	{Role: pipeline.RoleComb}, {Role: pipeline.RoleTester}, {Role: pipeline.RoleReviewer}, {Role: pipeline.RoleDocumenter}}}
