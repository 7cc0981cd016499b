package codex_test

import (
	"context"
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
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
)

// The model's side of hive run with codex: the fake server plays each
// role codex is started as, from the role's prompt (hive's wording, which
// the script reads as a user would: the role's heading, the folder the
// architect is to plan in, the plan an implementer is to carry out).

var (
	roleHeading = regexp.MustCompile(`(?m)^# Role: (\S+)`)
	planFolder  = regexp.MustCompile("Write one phase of plans under `([^`]+)/`")
	planToRun   = regexp.MustCompile(`- Plan: (\.planning/phases/[^\s]+)/(\d+-\d+)-PLAN\.md`)
	// What each of the architect's two plans writes, task by task.
	healthFiles = map[string][]task{
		"01": {
			{"health handler", "health.go", "package main\n\nimport \"net/http\"\n\n// health answers 200 while the service runs.\nfunc health(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }\n"},
			{"health test", "health_test.go", "package main\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestHealth(t *testing.T) {\n\tw := httptest.NewRecorder()\n\thealth(w, httptest.NewRequest(http.MethodGet, \"/healthz\", nil))\n\tif w.Code != http.StatusOK {\n\t\tt.Fatalf(\"status %d\", w.Code)\n\t}\n}\n"},
		},
		"02": {
			{"health docs", "docs/health.md", "# Health check\n\nGET /healthz answers 200 while the service runs.\n"},
		},
	}
	// Every role's report, as its contract asks (the reviewer's issues
	// and approval are ignored by the others' contracts).
	roleReport = "Done.\n\n<!--HIVE_REPORT\n{\"status\": \"complete\", \"summary\": \"%s did its part\", \"confidence\": 0.9, \"issues\": [], \"approval_status\": \"approved\"}\nHIVE_REPORT-->"
)

// healthPlan is plan num of phase as the architect writes it.
func healthPlan(phase, num string) string {
	var files, tasks []string
	for i, tk := range healthFiles[num] {
		files = append(files, tk.File)
		tasks = append(tasks, fmt.Sprintf("<task type=\"auto\">\n  <name>Task %d: %s</name>\n  <files>%s</files>\n  <action>Write %s.</action>\n  <done>%s exists</done>\n</task>", i+1, tk.Name, tk.File, tk.File, tk.File))
	}
	return fmt.Sprintf("---\nphase: %s\nplan: %s\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [%s]\nautonomous: true\n---\n\n<objective>\nPart %s of the health check.\n</objective>\n\n<tasks>\n%s\n</tasks>\n",
		phase, num, strings.Join(files, ", "), num, strings.Join(tasks, "\n"))
}

// writeCmd writes body to file (relative to codex's working directory).
func writeCmd(file, body string) string {
	return fmt.Sprintf("mkdir -p %s && printf '%%s' %s > %s", shq(filepath.Dir(file)), shq(body), shq(file))
}

// playRoles answers every request of the run: one step of the prompt's
// role or plan per request, by the tool outputs of its turn so far.
func playRoles(t *testing.T) fakeopenai.Reply {
	return fakeopenai.Reply{Func: func(req fakeopenai.Request) fakeopenai.Reply {
		prompt := req.LastUserText
		var steps []fakeopenai.Reply
		switch m := planToRun.FindStringSubmatch(prompt); {
		case m != nil:
			dir, id := m[1], m[2]
			num := id[strings.Index(id, "-")+1:]
			tasks := healthFiles[num]
			for n, tk := range tasks {
				steps = append(steps, fakeopenai.Run(writeCmd(tk.File, tk.Body)+" && "+commitCmd([]string{tk.File},
					fmt.Sprintf("feat(%s): %s", id, tk.Name), "Hive-Plan: "+id, fmt.Sprintf("Hive-Task: %s/%d", id, n+1))))
			}
			summary := fmt.Sprintf("%s/%s-SUMMARY.md", dir, id)
			steps = append(steps,
				fakeopenai.Run(writeCmd(summary, fmt.Sprintf("---\nphase: %s\nplan: %s\n---\n# Plan %s\n\n## Self-Check: PASSED\n", filepath.Base(dir), num, id))+
					" && "+commitCmd([]string{summary}, fmt.Sprintf("docs(%s): complete plan", id), "Hive-Plan: "+id)),
				fakeopenai.Say(fmt.Sprintf("PLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** %d/%d\n**SUMMARY:** %s", id, len(tasks), len(tasks), summary)))
		case roleHeading.MatchString(prompt):
			role := roleHeading.FindStringSubmatch(prompt)[1]
			if role == pipeline.RoleArchitect {
				dir := planFolder.FindStringSubmatch(prompt)
				if dir == nil {
					t.Errorf("the architect's prompt names no folder to plan in:\n%s", prompt)
					return fakeopenai.Say("no folder")
				}
				phase := filepath.Base(dir[1])
				number, _, _ := strings.Cut(phase, "-")
				var writes, paths []string
				for _, num := range []string{"01", "02"} {
					rel := fmt.Sprintf("%s/%s-%s-PLAN.md", dir[1], number, num)
					paths = append(paths, rel)
					writes = append(writes, writeCmd(rel, healthPlan(phase, num)))
				}
				steps = append(steps, fakeopenai.Run(strings.Join(writes, " && ")+" && "+commitCmd(paths, "docs: plans for the health check")))
			}
			steps = append(steps, fakeopenai.Say(fmt.Sprintf(roleReport, role)))
		default:
			t.Errorf("a request the script does not know: %.200q", prompt)
			return fakeopenai.Say("unknown")
		}
		if k := req.TurnToolOutputs; k < len(steps) {
			return steps[k]
		}
		t.Errorf("no scripted step %d for %.80q", req.TurnToolOutputs, prompt)
		return fakeopenai.Say("the script ran out")
	}}
}

// TestPipelineWithCodex runs hive run's full workflow with the real codex
// CLI playing every role against the fake Responses server: the
// architect's plans, written and committed through codex's shell tool, are
// linted and run by two implementers in parallel worktrees; comb, tester,
// reviewer and documenter report; the project's tests pass; the endpoint,
// its test and its documentation reach main, one commit per task; and
// each role's tokens, as codex counts them, reach the run.
func TestPipelineWithCodex(t *testing.T) {
	bin := fakeopenai.CodexBinary(t) // fails when missing and CI is set; skips otherwise
	root := e2etest.Repo(t, map[string]string{
		"go.mod":  "module example.com/svc\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"net/http\"\n\nfunc main() { http.ListenAndServe(\":8080\", nil) }\n",
	})
	srv := fakeopenai.New(t, fakeopenai.Script{{Name: "roles", TurnToolOutputs: fakeopenai.Any, Reply: playRoles(t)}})
	home := t.TempDir()
	launcher := agent.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	workflow := pipeline.Workflow{Name: "classic", Steps: []pipeline.Step{{Role: pipeline.RoleArchitect}, {Role: pipeline.RoleImplementer},
		{Role: pipeline.RoleComb}, {Role: pipeline.RoleTester}, {Role: pipeline.RoleReviewer}, {Role: pipeline.RoleDocumenter}}}
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: repo, Journal: journal.NewMemory(), Objective: "add a health check endpoint", Workflow: workflow,
		Launcher: launcher, AutoAnswer: true, MaxConcurrent: 2, Stall: time.Minute,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	t.Logf("%d model requests", len(srv.ResponsesRequests()))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	var jobs []string
	for _, j := range s.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s=%s/%d", j.ID, j.State, j.Attempts))
		if j.Spend.InputTokens <= 0 || j.Spend.OutputTokens <= 0 {
			t.Errorf("%s's tokens did not reach the run: %+v", j.ID, j.Spend)
		}
		if !j.Phase && (j.Report == nil || j.Report.Status != "complete" || j.Report.Summary != j.Role+" did its part") {
			t.Errorf("%s's report: %+v", j.ID, j.Report)
		}
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
	want := map[string]int{"01-01/1": 1, "01-01/2": 1, "01-02/1": 1}
	if got := e2etest.TaskCommits(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Hive-Task trailers on main %v, want %v", got, want)
	}
	if st := e2etest.Dirty(t, root); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
}
