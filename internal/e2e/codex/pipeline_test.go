package codex_test

import (
	"context"
	"fmt"
	"path/filepath"
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

// writeCmd writes body to file (relative to codex's working directory).
func writeCmd(file, body string) string {
	return fmt.Sprintf("mkdir -p %s && printf '%%s' %s > %s", shq(filepath.Dir(file)), shq(body), shq(file))
}

// playRoles answers every request of the run: one step of the prompt's
// role or plan per request, by the tool outputs of its turn so far, each
// step one call of codex's shell tool.
func playRoles(t *testing.T) fakeopenai.Reply {
	return fakeopenai.Reply{Func: func(req fakeopenai.Request) fakeopenai.Reply {
		prompt := req.LastUserText
		var steps []fakeopenai.Reply
		switch m := e2etest.PlanToRun.FindStringSubmatch(prompt); {
		case m != nil:
			dir, id := m[1], m[2]
			_, num, _ := strings.Cut(id, "-")
			tasks := e2etest.HealthTasks[num]
			for n, tk := range tasks {
				steps = append(steps, fakeopenai.Run(writeCmd(tk.File, tk.Body)+" && "+commitCmd([]string{tk.File},
					fmt.Sprintf("feat(%s): %s", id, tk.Name), "Hive-Plan: "+id, fmt.Sprintf("Hive-Task: %s/%d", id, n+1))))
			}
			summary := e2etest.HealthSummaryPath(dir, id)
			steps = append(steps,
				fakeopenai.Run(writeCmd(summary, e2etest.HealthSummary(dir, id))+" && "+commitCmd([]string{summary}, fmt.Sprintf("docs(%s): complete plan", id), "Hive-Plan: "+id)),
				fakeopenai.Say(e2etest.PlanComplete(dir, id, len(tasks))))
		case e2etest.RoleHeading.MatchString(prompt):
			role := e2etest.RoleHeading.FindStringSubmatch(prompt)[1]
			if role == pipeline.RoleArchitect {
				dir := e2etest.PlanFolder.FindStringSubmatch(prompt)
				if dir == nil {
					t.Errorf("the architect's prompt names no folder to plan in:\n%s", prompt)
					return fakeopenai.Say("no folder")
				}
				paths := e2etest.HealthPlanPaths(dir[1])
				var writes []string
				for i, rel := range paths {
					writes = append(writes, writeCmd(rel, e2etest.HealthPlan(filepath.Base(dir[1]), fmt.Sprintf("%02d", i+1))))
				}
				steps = append(steps, fakeopenai.Run(strings.Join(writes, " && ")+" && "+commitCmd(paths, "docs: plans for the health check")))
			}
			steps = append(steps, fakeopenai.Say("Done.\n\n"+e2etest.RoleReport(role)))
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
	t.Parallel()
	bin := fakeopenai.CodexBinary(t) // fails when missing and CI is set; skips otherwise
	root := e2etest.Repo(t, e2etest.HealthService)
	srv := fakeopenai.New(t, fakeopenai.Script{{Name: "roles", TurnToolOutputs: fakeopenai.Any, Reply: playRoles(t)}})
	home := t.TempDir()
	launcher := agent.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: e2etest.OpenRepo(ctx, t, root), Journal: journal.NewMemory(), Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
		Launcher: launcher, AutoAnswer: true, MaxConcurrent: 2, Stall: time.Minute,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	t.Logf("%d model requests", len(srv.ResponsesRequests()))
	if err != nil {
		t.Fatal(err)
	}
	e2etest.CheckHealthRun(t, root, res)
}
