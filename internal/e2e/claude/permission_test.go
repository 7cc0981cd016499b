package claude_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

const permPhase = ".planning/phases/04-perm"

const permPlan = `---
phase: 04-perm
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [perm.txt]
autonomous: true
---
<objective>Write perm.txt with a shell command</objective>
<tasks>
<task type="auto"><name>Task 1: Perm</name><files>perm.txt</files><action>Run ` + "`echo ran > perm.txt`" + `.</action><done>perm.txt exists</done></task>
</tasks>
`

// permObserver answers every permission checkpoint with answer, as a human
// typing in hive's terminal would.
type permObserver struct {
	*e2etest.Recorder
	answer string
	opened []phase.Checkpoint
	sent   []phase.Command
}

func (o *permObserver) Command(c phase.Command, s phase.Snapshot) {
	o.Recorder.Command(c, s)
	switch c.Type {
	case phase.CmdCheckpointOpened:
		o.Lock()
		o.opened = append(o.opened, *c.Checkpoint)
		o.Unlock()
		if c.Checkpoint.Kind == phase.KindPermission {
			o.Answers <- runner.Answer{Plan: c.Plan, Text: o.answer}
		}
	case phase.CmdPermission:
		o.Lock()
		o.sent = append(o.sent, c)
		o.Unlock()
	}
}

// A live Claude Code session asks to run a Bash command its rules do not
// allow; hive relays the request as a permission checkpoint, the human
// answers allow, the command runs (perm.txt appears) and the plan completes
// in the same session.
func TestPermissionRealClaude(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{permPhase + "/04-01-PLAN.md": permPlan})

	summary := permPhase + "/04-01-SUMMARY.md"
	const shell = "sh -c 'echo ran > perm.txt'"
	srv := fa.New(t, fa.Script{Rules: fa.Steps("executor", "04-01-PLAN.md",
		fa.Bash(shell), // not allowed by the rules (nor an edit acceptEdits lets through): Claude Code asks
		fa.Bash("git add perm.txt && git commit -q -m 'feat(04-01): Perm' -m 'Hive-Plan: 04-01' -m 'Hive-Task: 04-01/1'"),
		withText([]string{"PROGRESS: Task 1/1 complete: feat(04-01): Perm"}, fa.Write(filepath.Join(root, filepath.FromSlash(summary)),
			"---\nphase: 04-perm\nplan: 01\nsubsystem: perm\ntags: [e2e]\nduration: 1min\ncompleted: 2026-01-01\n---\n# Plan 04-01 Summary\n\nperm.txt written.\n\n## Self-Check: PASSED\n")),
		fa.Bash("git add "+summary+" && git commit -q -m 'docs(04-01): complete plan' -m 'Hive-Plan: 04-01'"),
		fa.Text("PLAN COMPLETE\n\n**Plan:** 04-01\n**Tasks:** 1/1\n**SUMMARY:** "+summary),
	)})
	home := t.TempDir()
	launcher := adapter.Claude{
		Path: bin,
		Live: true,
		// Bash only for git add and git commit: anything else is asked for.
		AllowedTools: []string{"Read", "Write", "Edit", "Bash(git add:*)", "Bash(git commit:*)"},
		Env:          e2etest.ClaudeEnv(srv.URL(), home),
	}
	ph := e2etest.LoadPhase(t, root, permPhase)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	obs := &permObserver{Recorder: e2etest.NewRecorder(nil), answer: "allow"}
	mem := journaltest.NewMemory()
	res, err := runner.Run(ctx, runner.Options{
		Repo:     repo,
		Phase:    ph,
		Journal:  mem,
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
			Interactive:  true,
			Answers:      obs.Answers,
			PollInterval: 20 * time.Millisecond,
		},
	})
	if err != nil {
		t.Fatalf("runner.Run: %v\nobserver:\n%s", err, obs)
	}
	defer func() {
		if t.Failed() {
			t.Logf("observer:\n%s", obs)
		}
	}()

	// Relayed: one permission checkpoint naming the tool and the command.
	if len(obs.opened) != 1 {
		t.Fatalf("%d checkpoints opened, want 1 (the permission request): %+v", len(obs.opened), obs.opened)
	}
	cp := obs.opened[0]
	if cp.Kind != phase.KindPermission || cp.Type != "permission" || cp.Tool != "Bash" || cp.RequestID == "" ||
		cp.Details != "Bash wants to run: "+shell || strings.Join(cp.Options, "|") != "allow|deny|always" || cp.Standalone {
		t.Errorf("permission checkpoint = %+v", cp)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(cp.Input), &in); err != nil || in["command"] != shell {
		t.Errorf("checkpoint input %q: %v", cp.Input, err)
	}
	// Answered through the same process.
	if len(obs.sent) != 1 || obs.sent[0].Text != "allow" || obs.sent[0].Checkpoint.RequestID != cp.RequestID {
		t.Errorf("permission commands = %+v, want one allow for request %s", obs.sent, cp.RequestID)
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
	recs, err := mem.Events(res.Run.ID, 0)
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
			answers = append(answers, ev.Text+" by "+ev.By)
		}
	}
	if strings.Join(starts, ",") != "1" {
		t.Errorf("agent-started attempts %v, want [1]: the same session goes on after the answer", starts)
	}
	if strings.Join(answers, ";") != "allow by terminal" {
		t.Errorf("journaled answers %v", answers)
	}
	if log := git(t, root, "log", "--format=%B"); !strings.Contains(log, "Hive-Task: 04-01/1") {
		t.Errorf("no task commit:\n%s", log)
	}
}
