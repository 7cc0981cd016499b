package executor_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

var completeRE = regexp.MustCompile(`^PLAN COMPLETE\n\n\*\*Plan:\*\* (\S+)\n\*\*Tasks:\*\* (\d+)/(\d+)\n\*\*SUMMARY:\*\* (\S+)\n\n\*\*Commits:\*\*\n((?:- [0-9a-f]{7,} .+\n?)+)$`)

func TestPlanCompletesWithOneCommitPerTask(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("pkg/store")...)

	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	texts, result := p.Turn()

	for n := 1; n <= 3; n++ {
		if !simtest.Contains(texts, fmt.Sprintf("PROGRESS: Task %d/3 complete: ", n)) {
			t.Errorf("no PROGRESS for task %d in %q", n, texts)
		}
	}
	done := simtest.Find(texts, "PLAN COMPLETE")
	m := completeRE.FindStringSubmatch(done)
	if m == nil {
		t.Fatalf("PLAN COMPLETE message malformed:\n%s", done)
	}
	if m[1] != "01-01" || m[2] != "3" || m[3] != "3" || m[4] != simtest.PhaseDir+"/01-01-SUMMARY.md" {
		t.Errorf("PLAN COMPLETE fields = %q", m[1:5])
	}
	if result["result"] != done || result["is_error"] != false || result["subtype"] != "success" {
		t.Errorf("result line = %v", result)
	}

	// The session is live: another message gets its own turn.
	p.Send("status?")
	if texts, _ := p.Turn(); !simtest.Contains(texts, "complete") {
		t.Errorf("follow-up turn = %q", texts)
	}
	p.Stdin.Close()
	if code := p.Wait(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d after EOF, want 0; stderr:\n%s", code, p.ErrText())
	}

	if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 3 || got["1"] != 1 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("Hive-Task trailers = %v, want one per task", got)
	}
	subjects := simtest.Git(t, dir, "log", "--format=%s", "-4")
	for _, want := range []string{"docs(01-01): complete plan", "feat(01-01): step 3 of 01-01", "test(01-01): step 2 of 01-01", "feat(01-01): step 1 of 01-01"} {
		if !strings.Contains(subjects, want) {
			t.Errorf("history lacks %q:\n%s", want, subjects)
		}
	}
	if status := simtest.Git(t, dir, "status", "--porcelain"); status != "" {
		t.Errorf("working tree not clean:\n%s", status)
	}

	summaryPath := simtest.PhaseDir + "/01-01-SUMMARY.md"
	data, err := os.ReadFile(filepath.Join(dir, summaryPath))
	if err != nil {
		t.Fatal(err)
	}
	s, diags := parse.Summary(summaryPath, data)
	if plan.HasErrors(diags) {
		t.Errorf("summary diagnostics: %v", diags)
	}
	if s.SelfCheck != "PASSED" || s.Plan != "01" || s.OneLiner == "" || len(s.KeyFilesCreated) != 7 {
		t.Errorf("summary = %+v\n%s", s, data)
	}
	for _, d := range diags {
		if d.Severity >= plan.SeverityWarning {
			t.Errorf("summary diagnostic: %v", d)
		}
	}

	// Files look like their kind and carry one marker each.
	goFile, _ := os.ReadFile(filepath.Join(dir, "pkg/store/store.go"))
	if !strings.Contains(string(goFile), "package store") || strings.Count(string(goFile), "hive-sim 01-01/1:") != 1 {
		t.Errorf("store.go = %q", goFile)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "pkg/store/config.json"))
	if !strings.Contains(string(js), `"01-01/2"`) {
		t.Errorf("config.json = %q", js)
	}

	// A second run finds every task done: no new commits but the same answer.
	before := simtest.Git(t, dir, "rev-list", "--count", "HEAD")
	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel))
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("rerun: code %d, texts %q", code, texts)
	}
	if after := simtest.Git(t, dir, "rev-list", "--count", "HEAD"); after != before {
		t.Errorf("rerun made commits: %s -> %s", before, after)
	}
}

func TestCrashThenRerun(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-02", simtest.ThreeTasks("crash")...)
	crash := faults.EnvFaults + "=01-02=crash@2#1"

	p := simtest.Start(t, dir, crash)
	p.Send(simtest.TeamPrompt(rel))
	if code := p.Wait(simtest.WaitLimit); code != 3 {
		t.Fatalf("exit code %d, want 3; stderr:\n%s", code, p.ErrText())
	}
	if !strings.Contains(p.ErrText(), "crash") {
		t.Errorf("stderr does not report the crash:\n%s", p.ErrText())
	}
	if got := simtest.TaskTrailers(t, dir, "01-02"); len(got) != 1 || got["1"] != 1 {
		t.Fatalf("after crash: trailers %v, want task 1 only", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "crash/store_test.go")); err != nil {
		t.Errorf("crash did not leave task 2's files written: %v", err)
	}

	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), crash, faults.EnvAttempt+"=2")
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("rerun: code %d, texts %q", code, texts)
	}
	if got := simtest.TaskTrailers(t, dir, "01-02"); len(got) != 3 || got["1"] != 1 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("after rerun: trailers %v, want one per task", got)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "crash/store_test.go"))
	if n := strings.Count(string(data), "hive-sim 01-02/2:"); n != 1 {
		t.Errorf("task 2 marker written %d times:\n%s", n, data)
	}
}

func TestGarbageStillCompletes(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-03", simtest.ThreeTasks("junk")...)
	p := simtest.Start(t, dir, faults.EnvFaults+"=01-03=garbage")
	p.Send(simtest.TeamPrompt(rel))
	texts, _ := p.Turn()
	p.Stdin.Close()
	if code := p.Wait(simtest.WaitLimit); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Errorf("no PLAN COMPLETE in %q", texts)
	}
	if p.JunkLines() < 5 {
		t.Errorf("only %d junk lines", p.JunkLines())
	}
}

func TestConcurrentSimsShareOneWorkingTree(t *testing.T) {
	dir := simtest.NewRepo(t)
	ids := []string{"01-01", "01-02", "01-03"}
	var rels []string
	for _, id := range ids {
		var tasks []simtest.Task
		for i := range 5 {
			tasks = append(tasks, simtest.Task{Files: []string{fmt.Sprintf("p%s/f%d.go", id, i), fmt.Sprintf("p%s/f%d.md", id, i)}})
		}
		tasks = append(tasks, simtest.Task{}) // an empty commit among the others
		rels = append(rels, simtest.WritePlan(t, dir, id, tasks...))
	}
	var wg sync.WaitGroup
	for _, rel := range rels {
		wg.Go(func() {
			texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel))
			if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
				t.Errorf("%s: code %d, texts %q", rel, code, texts)
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		got := simtest.TaskTrailers(t, dir, id)
		for n := 1; n <= 6; n++ {
			if got[fmt.Sprint(n)] != 1 {
				t.Errorf("%s: trailers %v, want one per task", id, got)
				break
			}
		}
		// Every commit holds only its own plan's files.
		for _, line := range strings.Split(simtest.Git(t, dir, "log", "--format=", "--name-only", "--grep=Hive-Task: "+id+"/"), "\n") {
			if line != "" && !strings.HasPrefix(line, "p"+id+"/") {
				t.Errorf("%s committed foreign file %s", id, line)
			}
		}
	}
	if status := simtest.Git(t, dir, "status", "--porcelain"); status != "" {
		t.Errorf("working tree not clean:\n%s", status)
	}
}

func decisionTask() simtest.Task {
	return simtest.Task{Type: "checkpoint:decision", Name: "Choose the storage backend", Extra: `  <decision>Which storage backend?</decision>
  <context>Books must survive restarts.</context>
  <options>
    <option id="json-file"><name>JSON file</name><pros>No dependencies</pros><cons>Whole-file rewrites</cons></option>
    <option id="sqlite"><name>SQLite</name><pros>Queries, transactions</pros><cons>cgo or a large pure-Go driver</cons></option>
  </options>
  <resume-signal>Select: json-file or sqlite</resume-signal>
`}
}

func TestTeamDecisionCheckpoint(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-04", simtest.Task{Files: []string{"d/a.go"}}, decisionTask(), simtest.Task{Files: []string{"d/b.go"}})

	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	texts, result := p.Turn()
	cp := simtest.Find(texts, "CHECKPOINT: decision")
	for _, want := range []string{"PLAN: 01-04\nPROGRESS: 1/3\n\n### Checkpoint Details\n", "**Decision:** Which storage backend?", "1. **json-file** - JSON file", "2. **sqlite** - SQLite", "Pros: Queries, transactions", "### Awaiting\nSelect: json-file or sqlite"} {
		if !strings.Contains(cp, want) {
			t.Errorf("checkpoint message lacks %q:\n%s", want, cp)
		}
	}
	if result["result"] != cp {
		t.Errorf("result %q is not the checkpoint message", result["result"])
	}

	p.Send("What is the status?") // not an answer: the agent keeps waiting
	if texts, _ := p.Turn(); !simtest.Contains(texts, "CHECKPOINT_RESPONSE") {
		t.Errorf("reminder turn = %q", texts)
	}
	p.Send("CHECKPOINT_RESPONSE: sqlite")
	texts, _ = p.Turn()
	if simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("no PLAN COMPLETE after the response: %q\nstderr:\n%s", texts, p.ErrText())
	}
	p.Stdin.Close()
	if code := p.Wait(5 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := simtest.TaskTrailers(t, dir, "01-04"); len(got) != 3 || got["2"] != 1 {
		t.Errorf("trailers %v", got)
	}
	if log := simtest.Git(t, dir, "log", "--format=%s"); !strings.Contains(log, "chore(01-04): decision sqlite") {
		t.Errorf("no decision commit:\n%s", log)
	}
	data, _ := os.ReadFile(filepath.Join(dir, simtest.PhaseDir, "01-04-SUMMARY.md"))
	if !strings.Contains(string(data), "chose sqlite") {
		t.Errorf("summary does not record the decision:\n%s", data)
	}
}

func TestTeamHumanVerifyIssuesThenApproved(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-05", simtest.Task{Files: []string{"v/ui.ts"}},
		simtest.Task{Type: "checkpoint:human-verify", Name: "Check the listing", Extra: "  <resume-signal>Type \"approved\" or describe issues</resume-signal>\n"})

	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	texts, _ := p.Turn()
	if cp := simtest.Find(texts, "CHECKPOINT: human-verify"); !strings.Contains(cp, "**How to verify:**") {
		t.Fatalf("checkpoint = %q", texts)
	}
	p.Send("CHECKPOINT_RESPONSE: the titles are not sorted")
	texts, _ = p.Turn()
	if simtest.Find(texts, "CHECKPOINT: human-verify") == "" {
		t.Fatalf("checkpoint not raised again: %q", texts)
	}
	p.Send("CHECKPOINT_RESPONSE: approved")
	texts, _ = p.Turn()
	if simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("no PLAN COMPLETE: %q", texts)
	}
	p.Stdin.Close()
	p.Wait(5 * time.Second)
	log := simtest.Git(t, dir, "log", "--format=%B")
	if !strings.Contains(log, "fix(01-05): address review: the titles are not sorted") || !strings.Contains(log, "Hive-Fix: 01-05/2") {
		t.Errorf("no fix commit:\n%s", log)
	}
	if got := simtest.TaskTrailers(t, dir, "01-05"); len(got) != 2 || got["2"] != 1 {
		t.Errorf("trailers %v", got)
	}
}

func TestStandaloneCheckpointAndContinuation(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-06", simtest.Task{Files: []string{"s/a.go"}},
		simtest.Task{Type: "checkpoint:human-verify", Name: "Verify the CLI output"},
		simtest.Task{Files: []string{"s/b.go"}})

	p := simtest.Start(t, dir)
	p.Send(simtest.StandalonePrompt(rel))
	texts, _ := p.Turn()
	if code := p.Wait(simtest.WaitLimit); code != 0 {
		t.Fatalf("standalone checkpoint exit %d, want 0", code)
	}
	cp := simtest.Find(texts, "CHECKPOINT: human-verify")
	for _, want := range []string{"## CHECKPOINT REACHED", "### Completed Tasks\n| # | Task | Commit | Files |\n|---|------|--------|-------|\n| 1 | step 1 of 01-06 | ", "### Current Task\n- **Number:** 2\n- **Name:** Verify the CLI output", "### Checkpoint Details\n**What was built:**", "### Awaiting\n"} {
		if !strings.Contains(cp, want) {
			t.Errorf("checkpoint block lacks %q:\n%s", want, cp)
		}
	}

	cont := fmt.Sprintf(`<objective>
Continue execution of plan 01-06 from task 2.
</objective>

<context>
Plan: @%s
</context>

<resume_from>
Task 2: Verify the CLI output
</resume_from>

<user_response>
approved
</user_response>
`, rel)
	texts, code := simtest.RunToEnd(t, dir, cont)
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("continuation: code %d, texts %q", code, texts)
	}
	if got := simtest.TaskTrailers(t, dir, "01-06"); len(got) != 3 || got["1"] != 1 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("trailers %v, want one per task", got)
	}
}

func TestContinuationWithMissingCommitFails(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-07", simtest.Task{Files: []string{"m/a.go"}}, simtest.Task{Type: "checkpoint:human-action", Name: "Create the API key"})
	prompt := "Plan: @" + rel + "\n<resume_from>Task 2: Create the API key</resume_from>\n<user_response>done</user_response>\n"
	texts, code := simtest.RunToEnd(t, dir, prompt)
	if code != 1 || !strings.HasPrefix(simtest.Find(texts, "PLAN FAILED"), "PLAN FAILED\n\n**Plan:** 01-07\n**Tasks:** 0/2\n**Error:** continuation") {
		t.Errorf("code %d, texts %q", code, texts)
	}
}

func TestFaults(t *testing.T) {
	t.Run("fail", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("f")...)
		texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), faults.EnvFaults+"=01-01=fail@2")
		if code != 1 || simtest.Find(texts, "PLAN FAILED\n\n**Plan:** 01-01\n**Tasks:** 1/3\n**Error:** simulated failure") == "" {
			t.Errorf("code %d, texts %q", code, texts)
		}
	})
	t.Run("nosummary", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("n")...)
		p := simtest.Start(t, dir, faults.EnvFaults+"=01-01=nosummary")
		p.Send(simtest.TeamPrompt(rel))
		if code := p.Wait(simtest.WaitLimit); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if simtest.Contains(p.Drain(), "PLAN COMPLETE") {
			t.Error("PLAN COMPLETE printed")
		}
		if _, err := os.Stat(filepath.Join(dir, simtest.PhaseDir, "01-01-SUMMARY.md")); err == nil {
			t.Error("SUMMARY written")
		}
		if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 3 {
			t.Errorf("trailers %v", got)
		}
	})
	t.Run("selfcheck-fail", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("s")...)
		texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), faults.EnvFaults+"=01-01=selfcheck-fail")
		if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
			t.Fatalf("code %d, texts %q", code, texts)
		}
		data, _ := os.ReadFile(filepath.Join(dir, simtest.PhaseDir, "01-01-SUMMARY.md"))
		if s, _ := parse.Summary("01-01-SUMMARY.md", data); s.SelfCheck != "FAILED" {
			t.Errorf("self-check %q", s.SelfCheck)
		}
	})
	t.Run("hang", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("h")...)
		file := filepath.Join(t.TempDir(), "sim.json")
		simtest.WriteFile(t, filepath.Dir(file), filepath.Base(file), `{"faults":{"01-01":[{"kind":"hang","task":2}]}}`)
		p := simtest.Start(t, dir, faults.EnvFile+"="+file)
		p.Send(simtest.TeamPrompt(rel))
		deadline := time.Now().Add(simtest.WaitLimit)
		for !strings.Contains(p.ErrText(), "simulated hang") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		p.Stdin.Close()
		select {
		case <-p.Done:
			t.Fatalf("hung sim exited (code %d) on stdin EOF", p.Code)
		case <-time.After(500 * time.Millisecond):
		}
		_ = p.Cmd.Process.Kill()
		p.Wait(5 * time.Second)
		if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 1 {
			t.Errorf("trailers %v, want task 1 only", got)
		}
	})
	t.Run("slow", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("w")...)
		start := time.Now()
		texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), faults.EnvFaults+"=01-01=slow@2", faults.EnvDelay+"=0s")
		if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
			t.Fatalf("code %d, texts %q", code, texts)
		}
		if d := time.Since(start); d < 10*faults.SlowBase {
			t.Errorf("slow@2 took only %v", d)
		}
	})
	t.Run("bad spec", func(t *testing.T) {
		dir := simtest.NewRepo(t)
		p := simtest.Start(t, dir, faults.EnvFaults+"=01-01=explode@2")
		if code := p.Wait(simtest.WaitLimit); code != 2 || !strings.Contains(p.ErrText(), "unknown fault kind") {
			t.Errorf("exit %d, stderr %q", code, p.ErrText())
		}
	})
}

func TestUnsafePathsAreSkipped(t *testing.T) {
	dir := simtest.NewRepo(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatalf("symlink: %v", err)
	}
	rel := simtest.WritePlan(t, dir, "01-08", simtest.Task{Files: []string{"../escape.txt", "/tmp/abs.txt", ".git/hooks/pre-commit", "link/sub/x.go", "ok/fine.go"}})
	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel))
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("code %d, texts %q", code, texts)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("wrote outside the repository through a symlink: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Error("wrote ../escape.txt")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/hooks/pre-commit")); err == nil {
		t.Error("wrote into .git")
	}
	if _, err := os.Stat(filepath.Join(dir, "ok/fine.go")); err != nil {
		t.Errorf("safe file not written: %v", err)
	}
	if n := strings.Count(strings.Join(texts, "\n"), "Skipping"); n != 4 {
		t.Errorf("%d paths reported as skipped, want 4: %q", n, texts)
	}
}

// TestTaskCostsTwoGitProcesses pins what a plan costs in git processes:
// one log at the start, an add and a commit per task and for the SUMMARY
// (the commit's own output names it: no log after it), and the show that
// lists the SUMMARY's files. The commits PLAN COMPLETE lists are the ones
// made. Chaos runs thousands of plans; each process is milliseconds of CPU.
func TestTaskCostsTwoGitProcesses(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("pkg/store")...)
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// The wrapper's command line is the test's, never the plan's.
	wrapper := "#!/bin/sh\necho \"$*\" | head -n 1 >> '" + calls + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	done := simtest.Find(texts, "PLAN COMPLETE")
	m := completeRE.FindStringSubmatch(done)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, texts %q", code, texts)
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// config user.email (the repository's identity), log, 3 × (add,
	// commit), show, add, commit.
	if len(lines) != 11 {
		t.Errorf("%d git processes for a three-task plan, want 11:\n%s", len(lines), data)
	}
	for _, line := range strings.Split(strings.TrimSpace(m[5]), "\n") {
		hash := strings.Fields(strings.TrimPrefix(line, "- "))[0]
		subject := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(line, "- "), " ", 2)[1])
		if got := simtest.Git(t, dir, "log", "-1", "--format=%s", hash); got != subject {
			t.Errorf("PLAN COMPLETE lists %s %q, which git knows as %q", hash, subject, got)
		}
	}
}
