package e2etest

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
	"syscall"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/work"
)

// KillDuringLimitWait runs hive (bin, in root, with env) with args: a run
// whose agents' provider answers one request with the account's usage
// limit, resetting at most two minutes ahead. It checks what a user relies
// on: while the run waits, `hive status --json` shows the wait and its
// reset; hive SIGKILLed then and started again with resume waits for the
// same reset (what is left of the wait, not a new one), then goes on and
// ends with exit 0. It returns what the two runs said, for the caller to
// check their work. hive runs as a program, so this waits for the reset on
// the wall clock, idle.
func KillDuringLimitWait(t *testing.T, bin, root string, env, args, resume []string) (first, second string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = root, env
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(RunTimeout)
	for !strings.Contains(out.String(), "waiting for the usage limit's reset at") {
		select {
		case err := <-done:
			t.Fatalf("hive ended (%v) before it waited for the usage limit:\n%s", err, out.String())
		case <-deadline:
			t.Fatalf("hive did not wait for the usage limit:\n%s", out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	code, status := HiveCmd(t, bin, root, env, "status", "--json")
	var runs []struct{ Limit *work.LimitWait }
	if err := json.Unmarshal([]byte(status), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].Limit == nil || runs[0].Limit.Kind != work.LimitUsage {
		t.Fatalf("hive status --json (exit %d, %v) shows no usage limit's wait:\n%s", code, err, status)
	}
	wait := runs[0].Limit
	if d := time.Until(wait.Until); d <= 0 || d > 2*time.Minute+2*time.Second {
		t.Errorf("the wait ends at %v, %v from now: want within the two minutes the provider said", wait.Until, d)
	}
	t.Logf("hive status --json: waiting for the %s limit met by %s until %s", wait.Kind, wait.Job, wait.Until.Format(time.TimeOnly))
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	first = out.String()

	code, second = HiveCmd(t, bin, root, env, resume...)
	if code != 0 {
		t.Fatalf("hive %s: exit %d\nfirst run:\n%s\nsecond run:\n%s", strings.Join(resume, " "), code, first, second)
	}
	if at := wait.Until.UTC().Format("15:04:05 MST"); !strings.Contains(second, "still waiting for the usage limit's reset at "+at) {
		t.Errorf("the second run does not wait for the same reset (%s):\n%s", at, second)
	}
	if !waitOver.MatchString(second) {
		t.Errorf("the second run did not end the wait:\n%s", second)
	}
	return first, second
}

// WriteHiveConfig writes root's .hive/config.json: agent plays every role,
// no retry of an agent (a limit that spent one would fail its plan), no
// verifier (the script plays executors only), and a stall long enough for
// an agent that holds its requests until the reset.
func WriteHiveConfig(t testing.TB, root string, agent map[string]any) {
	t.Helper()
	cfg, err := json.Marshal(map[string]any{
		"models":   map[string]any{"default": agent},
		"retries":  map[string]int{"agent": 0},
		"timeouts": map[string]string{"stall": "3m"},
		"workflow": map[string]bool{"verifier": false},
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
}

// KillDuringSixPlans is KillDuringLimitWait on `hive execute-phase 1` of
// SixPlans, then checks the phase's work (CheckSixPlans) and that one turn
// ended on the usage limit (hive log).
func KillDuringSixPlans(t *testing.T, bin, root string, env []string) {
	t.Helper()
	phase := []string{"execute-phase", "1", "--yes", "--no-tui"}
	first, second := KillDuringLimitWait(t, bin, root, env, phase, phase)
	CheckSixPlans(t, root, first, second)
	if _, log := HiveCmd(t, bin, root, env, "log"); strings.Count(log, "the provider's usage limit ended the turn") != 1 {
		t.Errorf("hive log does not show one turn ended on the usage limit:\n%s", log)
	}
}

// CheckSixPlans checks a completed run of SixPlans in root, whose hive
// said said: the phase complete, every task and SUMMARY committed once, no
// retry spent.
func CheckSixPlans(t testing.TB, root string, said ...string) {
	t.Helper()
	for _, s := range said {
		if strings.Contains(s, "retry 1 of") {
			t.Errorf("a retry was spent:\n%s", s)
		}
	}
	if len(said) > 0 && !strings.Contains(said[len(said)-1], "6/6 complete") {
		t.Errorf("the phase did not complete:\n%s", said[len(said)-1])
	}
	counts := TaskCommits(t, root)
	onMain := Git(t, root, "log", "main", "--format=%s")
	for id, tasks := range SixPlanTasks {
		for i := range tasks {
			if n := counts[fmt.Sprintf("%s/%d", id, i+1)]; n != 1 {
				t.Errorf("task %s/%d committed %d times", id, i+1, n)
			}
		}
		if n := strings.Count(onMain, "docs("+id+"): complete plan"); n != 1 {
			t.Errorf("%d SUMMARY commits of %s on main", n, id)
		}
	}
}

var waitOver = regexp.MustCompile(`the wait for the provider's usage limit is over after \d`)

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

// Subtest is a named subtest for Together.
type Subtest struct {
	Name string
	Run  func(*testing.T)
}

// Together runs tests as subtests of t, all at once, in the one slot of go
// test's -parallel that t holds: for tests that mostly wait on the wall
// clock (a usage limit's reset, hive's backoffs), which as parallel tests
// would each hold a slot that a test at work could use (the package's
// other tests waited minutes behind them).
func Together(t *testing.T, tests ...Subtest) {
	t.Helper()
	var wg sync.WaitGroup
	for _, st := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(st.Name, st.Run)
		}()
	}
	wg.Wait()
}
