package executor_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/sim/executor"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

const rolloverMsg = executor.RolloverPrefix + " your context is 81% full (162,000 of 200,000 tokens). Commit any half-done task as a WIP commit, report where you stand in a HIVE_REPORT with status partial, and end your turn."

// commitsOf lists "subject | trailers" of the repository's commits, newest
// first.
func commitsOf(t *testing.T, dir string) []string {
	return strings.Split(simtest.Git(t, dir, "log", "--format=%s | %(trailers:only,separator=%x2c )"), "\n")
}

// A rollover request that comes while the agent works on a task: the task's
// work so far becomes a WIP commit, the report says where the plan stands,
// the turn ends and no other task starts. A continuation agent then does
// the task again, and no task twice.
func TestRolloverInATaskCommitsWIP(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("r")...)
	// Attempt 1 commits task 1 and fails at task 2.
	if texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), faults.EnvFaults+"=01-01=fail@2#1"); code != 1 || simtest.Find(texts, "PLAN FAILED") == "" {
		t.Fatalf("attempt 1: code %d, texts %q", code, texts)
	}

	// Attempt 2 spends 20s on each task; the request comes during task 2.
	p := simtest.Start(t, dir, faults.EnvAttempt+"=2", faults.EnvDelay+"=20s")
	p.Send(simtest.TeamPrompt(rel))
	p.Until("PROGRESS: Task 1/3 complete")
	// Past the check before task 2, into its work: the sim has only a
	// channel to look at in between.
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	p.Send(rolloverMsg)
	texts, result := p.Turn()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the handover took %v: the sim finished the task's work first", d)
	}
	rep := simtest.Report(t, texts)
	wip := regexp.MustCompile(`^Task 2 of 3 next: step 2 of 01-01 \(in progress, its work so far in WIP commit ([0-9a-f]{7,})\); task 1 committed$`).FindStringSubmatch(rep.Summary)
	if rep.Status != "partial" || wip == nil || len(rep.Decisions) == 0 || len(rep.Concerns) == 0 ||
		!strings.Contains(rep.Concerns[0], "Hive-WIP: 01-01/2") || strings.Join(rep.Files, ",") != "r/store_test.go,r/config.json" {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(result["result"].(string), "<!--HIVE_REPORT") {
		t.Errorf("the turn's result is not the report: %v", result["result"])
	}
	log := commitsOf(t, dir)
	if log[0] != "wip(01-01): step 2 of 01-01 (in progress) | Hive-Plan: 01-01, Hive-WIP: 01-01/2" {
		t.Errorf("newest commit %q, want the WIP commit with its trailers and no Hive-Task", log[0])
	}
	if got := simtest.Git(t, dir, "rev-parse", "--short", "HEAD"); !strings.HasPrefix(got, wip[1]) && !strings.HasPrefix(wip[1], got) {
		t.Errorf("the report names %s, HEAD is %s", wip[1], got)
	}
	if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 1 || got["1"] != 1 {
		t.Errorf("trailers %v, want task 1 only: no task after the request", got)
	}
	// Later messages get an idle answer; closing stdin ends it cleanly.
	p.Send("Anything else?")
	if texts, _ := p.Turn(); !simtest.Contains(texts, "handed over at a context rollover") {
		t.Errorf("idle answer %q", texts)
	}
	p.Stdin.Close()
	if code := p.Wait(simtest.WaitLimit); code != 0 {
		t.Errorf("exit %d after the handover, want 0", code)
	}

	// The continuation agent does task 2 again (the WIP commit is not its
	// commit) and never a task twice.
	texts, code := simtest.RunToEnd(t, dir, simtest.TeamPrompt(rel), faults.EnvAttempt+"=3")
	if code != 0 || simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("continuation: code %d, texts %q", code, texts)
	}
	if got := simtest.TaskTrailers(t, dir, "01-01"); len(got) != 3 || got["1"] != 1 || got["2"] != 1 || got["3"] != 1 {
		t.Errorf("trailers %v, want one per task", got)
	}
	if n := strings.Count(strings.Join(commitsOf(t, dir), "\n"), "Hive-WIP: "); n != 1 {
		t.Errorf("%d WIP commits, want 1", n)
	}
}

// A request that is there before a task starts stops the plan before it:
// no WIP commit, and no task after it.
func TestRolloverBeforeATask(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-02", simtest.ThreeTasks("b")...)
	p := simtest.Start(t, dir)
	// Both at once: the request is seen at the first check, or (if it is
	// read later) at the one before a later task.
	p.Send(simtest.TeamPrompt(rel))
	p.Send(rolloverMsg)
	texts, _ := p.Turn()
	rep := simtest.Report(t, texts)
	m := regexp.MustCompile(`^Task (\d) of 3 next: step \d of 01-02; (.*)$`).FindStringSubmatch(rep.Summary)
	if rep.Status != "partial" || m == nil || simtest.Find(texts, "PLAN COMPLETE") != "" {
		t.Fatalf("report %+v; texts %q", rep, texts)
	}
	next := m[1]
	done := map[string]string{"1": "no task committed yet", "2": "task 1 committed", "3": "tasks 1-2 committed"}[next]
	if m[2] != done || !strings.HasPrefix(rep.Concerns[0], "Nothing is left uncommitted; start at task "+next) || len(rep.Files) != 0 {
		t.Errorf("report %+v", rep)
	}
	if got := simtest.TaskTrailers(t, dir, "01-02"); len(got) != int(next[0]-'1') || got[next] != 0 {
		t.Errorf("trailers %v with task %s next", got, next)
	}
	if log := strings.Join(commitsOf(t, dir), "\n"); strings.Contains(log, "Hive-WIP") {
		t.Errorf("a WIP commit with no task in progress:\n%s", log)
	}
}

// At a checkpoint the agent is between turns: the request ends the wait
// with a report that names the open checkpoint.
func TestRolloverAtACheckpoint(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-03", simtest.Task{Files: []string{"c/a.go"}}, decisionTask(), simtest.Task{Files: []string{"c/b.go"}})
	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	if texts, _ := p.Turn(); simtest.Find(texts, "CHECKPOINT: decision") == "" {
		t.Fatalf("no checkpoint: %q", texts)
	}
	p.Send(rolloverMsg)
	texts, _ := p.Turn()
	rep := simtest.Report(t, texts)
	if rep.Status != "partial" || !strings.HasPrefix(rep.Summary, "Task 2 of 3 next: ") ||
		!strings.HasSuffix(rep.Summary, "(checkpoint:decision, waiting for the user's answer); task 1 committed") {
		t.Errorf("report %+v", rep)
	}
	// The answer that comes after the handover is not acted on.
	p.Send("CHECKPOINT_RESPONSE: sqlite")
	if texts, _ := p.Turn(); len(texts) != 1 || strings.Contains(texts[0], "PROGRESS") {
		t.Errorf("after the handover: %q", texts)
	}
	if got := simtest.TaskTrailers(t, dir, "01-03"); len(got) != 1 {
		t.Errorf("trailers %v, want task 1 only", got)
	}
	p.Stdin.Close()
	if code := p.Wait(simtest.WaitLimit); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// With ignore-rollover the agent pays the request no attention: it does
// the whole plan, and answers the request afterwards with nothing useful.
func TestIgnoreRollover(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-04", simtest.ThreeTasks("i")...)
	p := simtest.Start(t, dir, faults.EnvFaults+"=01-04=ignore-rollover", faults.EnvDelay+"=100ms")
	p.Send(simtest.TeamPrompt(rel))
	p.Until("PROGRESS: Task 1/3 complete")
	p.Send(rolloverMsg)
	texts, _ := p.Turn()
	if simtest.Find(texts, "PLAN COMPLETE") == "" || simtest.Contains(texts, "HIVE_REPORT") {
		t.Fatalf("texts %q, want the plan completed and no report", texts)
	}
	texts, _ = p.Turn() // the request, answered once the plan's turn ended
	if len(texts) != 1 || simtest.Contains(texts, "HIVE_REPORT") || !simtest.Contains(texts, "nothing left to do") {
		t.Errorf("the answer to the ignored request: %q", texts)
	}
	if got := simtest.TaskTrailers(t, dir, "01-04"); len(got) != 3 {
		t.Errorf("trailers %v, want all three tasks", got)
	}
}

// A request after PLAN COMPLETE gets a complete report: nothing to hand over.
func TestRolloverAfterCompletion(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-05", simtest.ThreeTasks("a")...)
	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	if texts, _ := p.Turn(); simtest.Find(texts, "PLAN COMPLETE") == "" {
		t.Fatalf("texts %q", texts)
	}
	p.Send(rolloverMsg)
	texts, _ := p.Turn()
	if rep := simtest.Report(t, texts); rep.Status != "complete" || !strings.Contains(rep.Summary, "3 of 3 tasks committed") {
		t.Errorf("report %+v", rep)
	}
}
