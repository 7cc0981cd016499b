package claude_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/replay"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

const ansPhase = ".planning/phases/06-ans"

const ansPlan = `---
phase: 06-ans
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [perm.txt]
autonomous: false
---
<objective>Write perm.txt with a shell command, then have it checked</objective>
<tasks>
<task type="auto"><name>Task 1: Perm</name><files>perm.txt</files><action>Run ` + "`echo ran > perm.txt`" + `.</action><done>perm.txt exists</done></task>
<task type="checkpoint:human-verify" gate="blocking">
  <name>Task 2: Check perm.txt</name>
  <what-built>perm.txt</what-built>
  <how-to-verify>cat perm.txt</how-to-verify>
  <resume-signal>Type "approved" or describe issues</resume-signal>
</task>
</tasks>
`

// ansObserver answers nothing itself: on each opened checkpoint it has
// "another process" (a second handle on the same SQLite journal) append
// the answer exactly as `hive answer` does.
type ansObserver struct {
	*e2etest.Recorder
	other  journal.Journal
	wg     sync.WaitGroup
	opened []phase.Checkpoint
	errs   []error
}

func (o *ansObserver) Command(c phase.Command, s phase.Snapshot) {
	o.Recorder.Command(c, s)
	if c.Type != phase.CmdCheckpointOpened {
		return
	}
	cp := *c.Checkpoint
	o.Lock()
	o.opened = append(o.opened, cp)
	o.Unlock()
	text := "approved"
	if cp.Kind == phase.KindPermission {
		text = "allow"
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		if err := ansHiveAnswer(o.other, c.Plan, cp.ID, text); err != nil {
			o.Lock()
			o.errs = append(o.errs, err)
			o.Unlock()
		}
	}()
}

// ansHiveAnswer does what internal/cli/answer.go does: find the unfinished
// run where the plan waits at a checkpoint, check the answer on a replay,
// append it to the journal.
func ansHiveAnswer(j journal.Journal, planID string, cpID int, text string) error {
	var run journal.Run
	var open *phase.Checkpoint
	for try := 0; try < 100 && open == nil; try++ {
		if try > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		runs, err := j.Runs()
		if err != nil {
			return err
		}
		for _, r := range runs {
			if !r.Finished.IsZero() {
				continue
			}
			eng, err := replay.Run(j, r)
			if err != nil {
				return err
			}
			for _, p := range eng.Snapshot().Plans {
				if p.Spec.ID == planID && p.State == phase.Waiting && p.Open != nil {
					run, open = r, p.Open
				}
			}
		}
	}
	if open == nil {
		return fmt.Errorf("plan %s: no open checkpoint in the journal", planID)
	}
	if open.ID != cpID {
		return fmt.Errorf("plan %s: open checkpoint #%d in the journal, #%d announced", planID, open.ID, cpID)
	}
	ev := phase.Event{Type: phase.EvAnswer, Time: time.Now().UTC(), Plan: planID, CheckpointID: cpID, Text: text, By: "hive answer"}
	eng, err := replay.Run(j, run)
	if err != nil {
		return err
	}
	if _, err := eng.Step(ev); err != nil {
		return fmt.Errorf("answer refused: %w", err)
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = j.Append(run.ID, string(ev.Type), ev.Time, payload)
	return err
}

// TestAnswerThroughTheJournal: a live Claude Code session hits a
// permission request, then a checkpoint; nobody answers in hive's
// terminal (no Options.Answers): both are answered with `hive answer`,
// i.e. answer events another process appends to the run's SQLite journal,
// which the running hive finds by polling it.
func TestAnswerThroughTheJournal(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{ansPhase + "/06-01-PLAN.md": ansPlan})

	summary := ansPhase + "/06-01-SUMMARY.md"
	const shell = "sh -c 'echo ran > perm.txt'"
	rules := fa.Steps("executor", "06-01-PLAN.md",
		fa.Bash(shell), // not allowed: Claude Code asks
		fa.Bash("git add perm.txt && git commit -q -m 'feat(06-01): Perm' -m 'Hive-Plan: 06-01' -m 'Hive-Task: 06-01/1'"),
		withText([]string{"PROGRESS: Task 1/2 complete: feat(06-01): Perm"}, fa.Text(
			"CHECKPOINT: human-verify\nPLAN: 06-01\nPROGRESS: 1/2\n\n### Checkpoint Details\n**What was built:** perm.txt\n**How to verify:** cat perm.txt\n\n### Awaiting\nType \"approved\" or describe issues")),
	)
	rules = append(rules, fa.Steps("resume", "CHECKPOINT_RESPONSE",
		fa.Bash("git commit -q --allow-empty -m 'feat(06-01): Check perm.txt' -m 'checkpoint human-verify approved' -m 'Hive-Plan: 06-01' -m 'Hive-Task: 06-01/2'"),
		withText([]string{"PROGRESS: Task 2/2 complete: feat(06-01): Check perm.txt"}, fa.Write(filepath.Join(root, filepath.FromSlash(summary)),
			"---\nphase: 06-ans\nplan: 01\nsubsystem: perm\ntags: [e2e]\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan 06-01 Summary\n\nperm.txt written and checked.\n\n## Self-Check: PASSED\n")),
		fa.Bash("git add "+summary+" && git commit -q -m 'docs(06-01): complete plan' -m 'Hive-Plan: 06-01'"),
		fa.Text("PLAN COMPLETE\n\n**Plan:** 06-01\n**Tasks:** 2/2\n**SUMMARY:** "+summary),
	)...)
	srv := fa.New(t, fa.Script{Rules: rules})
	home := t.TempDir()
	launcher := adapter.Claude{
		Path:         bin,
		Live:         true,
		AllowedTools: []string{"Read", "Write", "Edit", "Bash(git add:*)", "Bash(git commit:*)"},
		Env:          e2etest.ClaudeEnv(srv.URL(), home),
	}
	ph := e2etest.LoadPhase(t, root, ansPhase)
	dbPath := filepath.Join(t.TempDir(), "journal.db")
	mine, err := journal.Open(dbPath) // the running hive's handle
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	other, err := journal.Open(dbPath) // `hive answer`'s handle
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	obs := &ansObserver{Recorder: e2etest.NewRecorder(nil), other: other}
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mine,
		Observer: obs,
		Schedule: runner.Schedule{
			MaxConcurrent: 1,
		},
		Agents: runner.Agents{
			Launcher:  launcher,
			Team:      true,
			StopGrace: 5 * time.Second,
			Stall:     30 * time.Second,
		},
		Human: runner.Human{
			Interactive:  true, // attended, but nothing typed here: answers come from the journal
			PollInterval: 20 * time.Millisecond,
		},
	})
	obs.wg.Wait()
	if err != nil {
		t.Fatalf("runner.Run: %v\nobserver:\n%s", err, obs)
	}
	defer func() {
		if t.Failed() {
			t.Logf("observer:\n%s", obs)
		}
	}()
	for _, e := range obs.errs {
		t.Errorf("hive answer: %v", e)
	}

	// A permission request, then the human-verify checkpoint.
	var kinds []string
	for _, cp := range obs.opened {
		kinds = append(kinds, string(cp.Kind)+"/"+cp.Type)
	}
	if len(obs.opened) != 2 || obs.opened[0].Kind != phase.KindPermission || obs.opened[0].Tool != "Bash" ||
		obs.opened[1].Type != "human-verify" {
		t.Errorf("checkpoints opened %v, want the Bash permission request then the human-verify checkpoint", kinds)
	}
	// The tool then ran.
	if b, err := os.ReadFile(filepath.Join(root, "perm.txt")); err != nil || string(b) != "ran\n" {
		t.Errorf("perm.txt = %q, %v; want the command's output", b, err)
	}
	for _, r := range srv.MainRequests() {
		for _, b := range r.Conv.LastToolResults() {
			if b.IsError {
				t.Errorf("tool error: %s", clipS(b.Text, 300))
			}
		}
	}
	// The plan completed in its one session.
	if !res.Snapshot.Finished || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Errorf("run finished=%v outcome=%q, want complete", res.Snapshot.Finished, res.Snapshot.Outcome)
	}
	sessions := map[string]bool{}
	for _, r := range srv.MainRequests() {
		sessions[r.Header.Get("X-Claude-Code-Session-Id")] = true
	}
	if len(sessions) != 1 {
		t.Errorf("%d Claude Code sessions, want 1", len(sessions))
	}
	// The journal, read through the other handle, holds both answers by
	// `hive answer`.
	recs, err := other.Events(res.Run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var starts, answers []string
	for _, r := range recs {
		var ev phase.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case phase.EvAgentStarted:
			starts = append(starts, fmt.Sprint(ev.Attempt))
		case phase.EvAnswer:
			answers = append(answers, fmt.Sprintf("#%d %s by %s", ev.CheckpointID, ev.Text, ev.By))
		}
	}
	if strings.Join(starts, ",") != "1" {
		t.Errorf("agent-started attempts %v, want [1]", starts)
	}
	if len(obs.opened) == 2 {
		want := fmt.Sprintf("#%d allow by hive answer;#%d approved by hive answer", obs.opened[0].ID, obs.opened[1].ID)
		if got := strings.Join(answers, ";"); got != want {
			t.Errorf("journaled answers %q, want %q", got, want)
		}
	}
	log := git(t, root, "log", "--format=%B")
	commits := e2etest.TaskCommits(t, root)
	for _, tr := range []string{"Hive-Task: 06-01/1", "Hive-Task: 06-01/2"} {
		if commits[strings.TrimPrefix(tr, "Hive-Task: ")] != 1 {
			t.Errorf("want one commit with %q:\n%s", tr, log)
		}
	}
	t.Logf("journaled answers: %s", strings.Join(answers, "; "))
}
