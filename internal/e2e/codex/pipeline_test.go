package codex_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/workflows"
)

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
				steps = append(steps, fakeopenai.Run(e2etest.TaskCmd(id, n+1, tk)))
			}
			summary := e2etest.HealthSummaryPath(dir, id)
			steps = append(steps,
				fakeopenai.Run(e2etest.WriteCmd(summary, e2etest.HealthSummary(dir, id))+" && "+e2etest.CommitCmd(id, 0, fmt.Sprintf("docs(%s): complete plan", id), "", summary, false)),
				fakeopenai.Say(e2etest.PlanComplete(dir, id, len(tasks))))
		case e2etest.RoleHeading.MatchString(prompt):
			role := e2etest.RoleHeading.FindStringSubmatch(prompt)[1]
			if role == workflows.RoleArchitect {
				dir := e2etest.PlanFolder.FindStringSubmatch(prompt)
				if dir == nil {
					t.Errorf("the architect's prompt names no folder to plan in:\n%s", prompt)
					return fakeopenai.Say("no folder")
				}
				paths := e2etest.HealthPlanPaths(dir[1])
				var writes []string
				for i, rel := range paths {
					writes = append(writes, e2etest.WriteCmd(rel, e2etest.HealthPlan(filepath.Base(dir[1]), fmt.Sprintf("%02d", i+1))))
				}
				steps = append(steps, fakeopenai.Run(strings.Join(writes, " && ")+" && "+e2etest.CommitPaths("docs: plans for the health check", paths...)))
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
	launcher := adapter.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: e2etest.OpenRepo(ctx, t, root), Journal: journaltest.NewMemory(), Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
		Launcher: launcher, AutoAnswer: true, MaxConcurrent: 2, Stall: time.Minute,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	t.Logf("%d model requests", len(srv.ResponsesRequests()))
	if err != nil {
		t.Fatal(err)
	}
	e2etest.CheckHealthRun(t, root, res)
}

// TestUsageLimitInARunWithCodex: the real codex plays every role of hive
// run; the tester's first request meets the account's usage limit,
// resetting 2.5 minutes ahead. The run waits for the reset (the test moves
// the run's clock past it), the tester runs again from its commits, and
// the run completes: every task committed once, no crash counted.
func TestUsageLimitInARunWithCodex(t *testing.T) {
	t.Parallel()
	bin := fakeopenai.CodexBinary(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	srv := fakeopenai.New(t, fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Match: isTester, Times: 1, Reply: usageLimit(150 * time.Second)},
		{Name: "roles", TurnToolOutputs: fakeopenai.Any, Reply: playRoles(t)},
	})
	home := t.TempDir()
	launcher := adapter.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
	clock := &testsupport.Clock{}
	go clock.AdvanceToTimer(t, 30*time.Second) // the wake's: codex says the reset to the minute, up to one sooner
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	j := journaltest.NewMemory()
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: e2etest.OpenRepo(ctx, t, root), Journal: j, Objective: e2etest.HealthObjective, Workflow: e2etest.Classic,
		Launcher: launcher, AutoAnswer: true, MaxConcurrent: 2, Now: clock.Now, After: clock.After,
		// The clock jumps past the reset: the roles at work must not seem
		// silent for that long.
		Stall:        10 * time.Minute,
		WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("outcome %s merged %v: %s %q", res.Snapshot.Outcome, res.Merged, res.Snapshot.Reason, res.Notes)
	}
	var limited, woke int
	j.Each(res.Run.ID, func(rec journal.Record) error {
		limited += map[string]int{string(roleplan.EvLimited): 1}[rec.Type]
		woke += map[string]int{string(roleplan.EvWake): 1}[rec.Type]
		return nil
	})
	if limited < 1 || woke != 1 {
		t.Errorf("%d limits and %d wakes journaled, want the limit (codex says it twice) and one wake", limited, woke)
	}
	for _, jb := range res.Snapshot.Jobs {
		if jb.ID == workflows.RoleTester && jb.Attempts != 2 || jb.ID != workflows.RoleTester && jb.Attempts != 1 {
			t.Errorf("%s ran %d times", jb.ID, jb.Attempts)
		}
	}
	e2etest.CheckHealthWork(t, root)
}
