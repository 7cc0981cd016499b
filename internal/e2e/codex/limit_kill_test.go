package codex_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/work"
)

// TestUsageLimitKillRealCodex: hive, the program, runs a phase of six
// plans (three at once) with the real codex. The account's usage limit
// answers the run's third model request, resetting two minutes ahead.
// While the run waits, `hive status --json` shows the wait with its
// reset; hive is then SIGKILLed, and started again it waits for the same
// reset (what is left of the wait, not a new one), then goes on and
// completes: every task committed once, no retry spent (retries.agent is
// 0, so a limit that spent one would fail its plan).
//
// hive runs here as a program, so its clock is the wall clock: the test
// waits for the reset (about a minute and a half, codex says it to the
// minute), idle. The runner's and piperun's tests move a test clock
// instead (TestUsageLimitRealCodex, TestUsageLimitWaitsForTheReset).
func TestUsageLimitKillRealCodex(t *testing.T) {
	t.Parallel()
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())

	var requests atomic.Int32
	script := fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Times: 1,
			Match: func(fakeopenai.Request) bool { return requests.Add(1) == 3 },
			Reply: fakeopenai.Reply{Func: func(fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{Status: 429, Error: "The usage limit has been reached", ErrorType: "usage_limit_reached",
					ErrorFields: map[string]any{"plan_type": "plus", "resets_at": time.Now().Add(2 * time.Minute).Unix(), "resets_in_seconds": 120}}
			}}},
		{Name: "executor", TurnToolOutputs: fakeopenai.Any,
			Match: func(r fakeopenai.Request) bool { return e2etest.PlanToRun.MatchString(r.LastUserText) },
			Reply: fakeopenai.Reply{Func: func(r fakeopenai.Request) fakeopenai.Reply {
				return nextStep(t, root, e2etest.PlanToRun.FindStringSubmatch(r.LastUserText)[2])
			}}},
	}
	srv := fakeopenai.New(t, script)
	home := t.TempDir()
	cfg, err := json.Marshal(map[string]any{
		"models": map[string]any{"default": map[string]any{"cli": "codex", "path": codex, "model": fakeopenai.Model,
			"args": srv.CodexConfig(), "env": map[string]string{"CODEX_HOME": home, "FAKE_API_KEY": "test"}}},
		"retries":  map[string]int{"agent": 0},
		"timeouts": map[string]string{"stall": "3m"},
		"workflow": map[string]bool{"verifier": false}, // no verifier's turns in the script
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".hive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".hive", "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(fakeopenai.CodexEnv(home), "HOME="+home, "CI=true")
	args := []string{"execute-phase", "1", "--yes", "--no-tui"}

	// The first run, until it waits.
	first := exec.Command(bin, args...)
	first.Dir, first.Env = root, env
	var out syncBuffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	waitFor := func(what string) {
		t.Helper()
		deadline := time.After(e2etest.RunTimeout)
		for !strings.Contains(out.String(), what) {
			select {
			case err := <-done:
				t.Fatalf("hive ended (%v) before it said %q:\n%s", err, what, out.String())
			case <-deadline:
				t.Fatalf("hive did not say %q:\n%s", what, out.String())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	waitFor("waiting for the usage limit's reset at")
	code, status := e2etest.HiveCmd(t, bin, root, env, "status", "--json")
	var runs []struct{ Limit *work.LimitWait }
	if err := json.Unmarshal([]byte(status), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].Limit == nil || runs[0].Limit.Kind != work.LimitUsage {
		t.Fatalf("hive status --json (exit %d, %v) shows no usage limit's wait:\n%s", code, err, status)
	}
	wait := runs[0].Limit
	reset := wait.Until
	if d := time.Until(reset); d <= 0 || d > 2*time.Minute+time.Second {
		t.Errorf("the wait ends at %v, %v from now: want within the two minutes codex said", reset, d)
	}
	t.Logf("hive status --json: waiting for the %s limit met by %s until %s", wait.Kind, wait.Job, reset.Format(time.TimeOnly))
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	firstOut := out.String()

	// Started again, it waits for what is left of the same wait.
	code, second := e2etest.HiveCmd(t, bin, root, env, args...)
	if code != 0 {
		t.Fatalf("hive execute-phase started again: exit %d\nfirst run:\n%s\nsecond run:\n%s", code, firstOut, second)
	}
	at := reset.UTC().Format("15:04:05 MST")
	if !strings.Contains(second, "still waiting for the usage limit's reset at "+at) {
		t.Errorf("the second run does not wait for the same reset (%s):\n%s", at, second)
	}
	if !regexp.MustCompile(`the wait for the provider's usage limit is over after \d`).MatchString(second) {
		t.Errorf("the second run did not end the wait:\n%s", second)
	}
	for _, said := range []string{firstOut, second} {
		if strings.Contains(said, "retry 1 of") {
			t.Errorf("a retry was spent:\n%s", said)
		}
	}
	if !strings.Contains(second, "6/6 complete") {
		t.Errorf("the phase did not complete:\n%s", second)
	}

	// Every task committed once, every plan's SUMMARY once.
	counts := e2etest.TaskCommits(t, root)
	for id, tasks := range e2etest.SixPlanTasks {
		for i := range tasks {
			if n := counts[fmt.Sprintf("%s/%d", id, i+1)]; n != 1 {
				t.Errorf("task %s/%d committed %d times", id, i+1, n)
			}
		}
		if n := strings.Count(e2etest.Git(t, root, "log", "main", "--format=%s"), "docs("+id+"): complete plan"); n != 1 {
			t.Errorf("%d SUMMARY commits of %s on main", n, id)
		}
	}
	_, log := e2etest.HiveCmd(t, bin, root, env, "log")
	if n := strings.Count(log, "the provider's usage limit ended the turn"); n != 1 {
		t.Errorf("%d turns ended on the usage limit in hive log, want 1:\n%s", n, log)
	}
	var seen []string
	for _, r := range srv.ResponsesRequests() {
		plan := "?"
		if m := e2etest.PlanToRun.FindStringSubmatch(r.LastUserText); m != nil {
			plan = m[2]
		}
		seen = append(seen, fmt.Sprintf("%s:%s/%d", r.Rule, plan, r.TurnToolOutputs))
	}
	t.Logf("%d model requests: %s", len(seen), strings.Join(seen, " "))
}

// nextStep plays the executor of plan id of e2etest.SixPlans from what
// the repository at root holds (e2etest.NextStep).
func nextStep(t *testing.T, root, id string) fakeopenai.Reply {
	cmd, report := e2etest.NextStep(t, root, phaseDir, id, e2etest.SixPlanTasks[id])
	if cmd == "" {
		return fakeopenai.Say(report)
	}
	return fakeopenai.Run(cmd)
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
