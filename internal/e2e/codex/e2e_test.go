// Package codex_test runs hive end to end with the real codex CLI against
// the fake OpenAI Responses server, the model's turns scripted: a three-plan
// phase (two plans in wave 1, a third depending on both) executed by codex
// agents, whose commits, SUMMARYs, ordering and token usage that reach the
// engine are checked; and hive run's full workflow with codex in every role.
package codex_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

const phaseDir = ".planning/phases/01-core"

// The phase of testdata/script/execute.txtar (internal/cli).
var planFiles = map[string]string{
	".planning/config.json": `{
  "mode": "yolo",
  "parallelization": {"enabled": true, "max_concurrent_agents": 2},
  "granularity": "fine"
}
`,
	phaseDir + "/01-01-PLAN.md": `---
phase: 01-core
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/model.go, src/model_test.go]
autonomous: true
requirements: [CORE-01]
must_haves:
  truths:
    - "A Book has a title and an author"
  artifacts:
    - path: "src/model.go"
      provides: "Book type"
      contains: "type Book"
---

<objective>
Add the Book model.

Purpose: everything else stores books.
Output: src/model.go with tests.
</objective>

<tasks>

<task type="auto">
  <name>Task 1: Book type</name>
  <files>src/model.go</files>
  <action>
Create ` + "`type Book struct { Title, Author string }`" + ` and ` + "`func (b Book) Valid() bool { return b.Title != \"\" && b.Author != \"\" }`" + `.
  </action>
  <verify><automated>go test ./src/...</automated></verify>
  <done>Book exists</done>
</task>

<task type="tdd" tdd="true">
  <name>Task 2: Book tests</name>
  <files>src/model_test.go</files>
  <action>Table test for Valid.</action>
  <verify><automated>go test ./src/... -run TestValid</automated></verify>
  <done>tests pass</done>
</task>

</tasks>
`,
	phaseDir + "/01-02-PLAN.md": `---
phase: 01-core
plan: 02
type: execute
wave: 1
depends_on: []
files_modified: [docs/usage.md]
autonomous: true
---

<objective>
Document usage.
</objective>

<tasks>
<task type="auto">
  <name>Task 1: Usage guide</name>
  <files>docs/usage.md</files>
  <action>Write the guide.</action>
  <done>docs/usage.md exists</done>
</task>
</tasks>
`,
	phaseDir + "/01-03-PLAN.md": `---
phase: 01-core
plan: 03
type: execute
depends_on: [01-01, 01-02]
files_modified: [src/store.go]
autonomous: true
---

<objective>
Store books in memory.
</objective>

<tasks>
<task type="auto">
  <name>Task 1: Store</name>
  <files>src/store.go</files>
  <action>A map from title to Book, guarded by a mutex.</action>
  <done>store works</done>
</task>
</tasks>
`,
}

// executorTasks are what the fake executor does for each task: write
// File with Body and commit it.
var executorTasks = map[string][]e2etest.Task{
	"01-01": {
		{Name: "Book type", File: "src/model.go", Body: "package src\n\ntype Book struct{ Title, Author string }\n\nfunc (b Book) Valid() bool { return b.Title != \"\" && b.Author != \"\" }\n"},
		{Name: "Book tests", File: "src/model_test.go", Body: "package src\n\nimport \"testing\"\n\nfunc TestValid(t *testing.T) {\n\tif (Book{}).Valid() {\n\t\tt.Fatal(\"empty book is valid\")\n\t}\n}\n"},
	},
	"01-02": {
		{Name: "Usage guide", File: "docs/usage.md", Body: "# Usage\n\nAdd books, then list them.\n"},
	},
	"01-03": {
		{Name: "Store", File: "src/store.go", Body: "package src\n\nimport \"sync\"\n\ntype Store struct {\n\tmu    sync.Mutex\n\tbooks map[string]Book\n}\n"},
	},
}

// script makes the fake model an executor of each plan: one exec_command
// per model step (each task, then the SUMMARY), then the final report.
func script() fakeopenai.Script {
	var s fakeopenai.Script
	for _, id := range []string{"01-01", "01-02", "01-03"} {
		tasks := executorTasks[id]
		key := "- Plan: " + phaseDir + "/" + id + "-PLAN.md"
		for i, tk := range tasks {
			s = append(s, fakeopenai.Rule{Name: fmt.Sprintf("%s task %d", id, i+1), UserText: key,
				TurnToolOutputs: i, Times: 1, Reply: fakeopenai.Run(e2etest.TaskCmd(id, i+1, tk))})
		}
		s = append(s,
			fakeopenai.Rule{Name: id + " summary", UserText: key, TurnToolOutputs: len(tasks), Times: 1,
				Reply: fakeopenai.Run(e2etest.SummaryCmd(phaseDir, id, tasks))},
			fakeopenai.Rule{Name: id + " report", UserText: key, TurnToolOutputs: len(tasks) + 1, Times: 1,
				Reply: fakeopenai.Say(e2etest.FinalText(phaseDir, id, tasks))})
	}
	return s
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return e2etest.Git(t, dir, args...)
}

func TestExecutePhaseWithCodex(t *testing.T) { runCodexPhase(t, false) }

// The same phase with each plan in its own worktree: codex runs its
// commands there, and hive merges the plans into the user's branch.
func TestExecutePhaseWithCodexInWorktrees(t *testing.T) { runCodexPhase(t, true) }

// runCodexPhase runs the phase with the real codex against the fake
// model; tune, when given, changes the script and the runner's options
// (Now, After, Agents.Retries and Stall) first, and says how many requests it adds
// to the script's. It returns what the observer saw.
func runCodexPhase(t *testing.T, worktrees bool, tune ...func(*fakeopenai.Script, *runner.Options) int) string {
	bin := fakeopenai.CodexBinary(t) // fails when missing and CI is set; skips otherwise
	start := time.Now()

	root := e2etest.Repo(t, planFiles)
	ph := e2etest.LoadPhase(t, root, phaseDir)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)

	sc := script()
	var tuned runner.Options
	extra := 0
	for _, f := range tune {
		extra += f(&sc, &tuned)
	}
	srv := fakeopenai.New(t, sc)
	home := t.TempDir()
	launcher := adapter.Codex{
		Path:  bin,
		Model: fakeopenai.Model,
		Args:  srv.CodexConfig(),
		Env:   []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home},
	}
	obs := e2etest.NewRecorder(nil)
	obs.Short = true // "command start-agent 01-03 " lines, as Index looks them up
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  journaltest.NewMemory(),
		Observer: obs,
		Now:      tuned.Now,
		After:    tuned.After,
		Schedule: runner.Schedule{
			MaxConcurrent: 2,
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Retries:   tuned.Agents.Retries,
			Team:      false,
			Stall:     cmp.Or(tuned.Agents.Stall, 60*time.Second),
			StopGrace: 2 * time.Second,
		},
		Git: integration.Git{
			Worktrees:    worktrees,
			WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
		},
	})
	elapsed := time.Since(start)
	t.Logf("run took %v; %d model requests", elapsed.Round(time.Millisecond), len(srv.ResponsesRequests()))
	if err != nil {
		t.Fatalf("runner.Run: %v\nobserved:\n%s", err, obs)
	}

	snap := res.Snapshot
	if !snap.Finished || snap.Outcome != phase.OutcomeComplete {
		t.Fatalf("outcome %q (finished %v), want complete\nobserved:\n%s", snap.Outcome, snap.Finished, obs)
	}
	for _, p := range snap.Plans {
		t.Logf("plan %s: %s, tasks %d, tokens in %d out %d", p.Spec.ID, p.State, p.TasksDone, p.InputTokens, p.OutputTokens)
		if p.State != phase.Complete {
			t.Errorf("plan %s is %s (%s), want complete", p.Spec.ID, p.State, p.Reason)
		}
		if p.InputTokens <= 0 {
			t.Errorf("plan %s: InputTokens = %d, want > 0 (codex usage did not reach the engine)", p.Spec.ID, p.InputTokens)
		}
		if want := len(executorTasks[p.Spec.ID]); p.TasksDone != want {
			t.Errorf("plan %s: TasksDone = %d, want %d", p.Spec.ID, p.TasksDone, want)
		}
	}

	// Exactly one commit per task, and one SUMMARY commit per plan.
	counts := e2etest.TaskCommits(t, root)
	want := map[string]int{"01-01/1": 1, "01-01/2": 1, "01-02/1": 1, "01-03/1": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("Hive-Task trailers %v, want %v", counts, want)
	}
	subjects := git(t, root, "log", "--format=%s")
	for id := range executorTasks {
		if !strings.Contains(subjects, "docs("+id+"): complete plan") {
			t.Errorf("no SUMMARY commit for %s in\n%s", id, subjects)
		}
		if err := e2etest.Summary(root, phaseDir, id); err != nil {
			t.Errorf("SUMMARY of %s: %v", id, err)
		}
	}
	if st := e2etest.Dirty(t, root); st != "" {
		t.Errorf("work tree not clean after the run:\n%s", st)
	}
	if worktrees {
		if merges := strings.Fields(git(t, root, "log", "--merges", "--format=%h")); len(merges) != 3 {
			t.Errorf("%d merge commits on the user's branch, want 3", len(merges))
		}
		if wts := strings.TrimSpace(git(t, root, "worktree", "list")); strings.Contains(wts, "\n") {
			t.Errorf("worktrees left:\n%s", wts)
		}
	}

	// 01-03 started only after 01-01 and 01-02 completed.
	start3 := obs.Index("command start-agent 01-03 ")
	if start3 < 0 {
		t.Fatalf("01-03 never started\nobserved:\n%s", obs)
	}
	for _, id := range []string{"01-01", "01-02"} {
		done := obs.Index("command plan-state " + id + " complete")
		if done < 0 || done > start3 {
			t.Errorf("%s completed at %d, 01-03 started at %d; want before\nobserved:\n%s", id, done, start3, obs)
		}
	}
	// Wave 1 ran in parallel: both plans started before either completed.
	s1, s2 := obs.Index("command start-agent 01-01 "), obs.Index("command start-agent 01-02 ")
	c1, c2 := obs.Index("command plan-state 01-01 complete"), obs.Index("command plan-state 01-02 complete")
	t.Logf("observer order: start 01-01@%d 01-02@%d, complete 01-01@%d 01-02@%d, start 01-03@%d", s1, s2, c1, c2, start3)
	if s1 < 0 || s2 < 0 || max(s1, s2) > min(c1, c2) {
		t.Errorf("wave 1 did not run 01-01 and 01-02 together\nobserved:\n%s", obs)
	}
	if got := obs.Index("event agent-started 01-03"); got < start3 {
		t.Errorf("agent-started 01-03 at %d, before its start-agent at %d", got, start3)
	}

	// Every scripted model step was used once: 4 + 3 + 3 requests.
	if n := len(srv.ResponsesRequests()); n != 10+extra {
		t.Errorf("%d model requests, want %d", n, 10+extra)
	}
	for _, n := range obs.Notes() {
		t.Logf("note: %s", n)
	}
	return obs.String()
}
