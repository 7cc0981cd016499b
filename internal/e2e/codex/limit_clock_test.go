package codex_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/work"
)

// TestUsageLimitSixPlansOnTheRunsClock: the real codex runs the six plans
// of e2etest.SixPlans (three at once) in hive's runner, whose clock is the
// test's. The account's usage limit answers the run's third model request,
// resetting two minutes ahead. While the run waits, `hive status --json`
// (hive, the program, reading the run's journal) shows the wait and its
// reset; the test then moves the run's clock past the reset (not the wall
// clock: the test takes seconds), the run goes on and completes, every
// task committed once and no retry spent (Retries 0: a limit that spent
// one would fail its plan).
func TestUsageLimitSixPlansOnTheRunsClock(t *testing.T) {
	t.Parallel()
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())
	srv := fakeopenai.New(t, limitAtTheThirdRequest(t, root))
	home := t.TempDir()
	launcher := adapter.Codex{Path: codex, Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
	j, err := journal.Open(filepath.Join(root, ".hive", "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	clock := &testsupport.Clock{}
	obs := e2etest.NewRecorder(nil)
	type result struct {
		res runner.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := runner.Run(ctx, runner.Options{
			Repo: e2etest.OpenRepo(ctx, t, root), Phase: e2etest.LoadPhase(t, root, e2etest.Phase01Dir), Journal: j, Observer: obs,
			Now: clock.Now, After: clock.After, Schedule: runner.Schedule{MaxConcurrent: 3},
			// The clock jumps past the reset: the agents at work must not
			// seem silent for that long.
			Agents: runner.Agents{Launcher: launcher, Retries: 0, Stall: 10 * time.Minute, StopGrace: 2 * time.Second},
			Git:    integration.Git{Worktrees: true, WorktreeRoot: filepath.Join(t.TempDir(), "worktrees")},
		})
		done <- result{res, err}
	}()

	// The wait, as hive status --json shows it.
	for !strings.Contains(obs.String(), "waiting for the usage limit's reset at") {
		select {
		case r := <-done:
			t.Fatalf("the run ended (%v) before it waited:\n%s", r.err, obs)
		case <-ctx.Done():
			t.Fatalf("the run did not wait:\n%s", obs)
		case <-time.After(100 * time.Millisecond):
		}
	}
	code, status := e2etest.HiveCmd(t, bin, root, append(fakeopenai.CodexEnv(home), "HOME="+home), "status", "--json")
	var runs []struct{ Limit *work.LimitWait }
	if err := json.Unmarshal([]byte(status), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].Limit == nil || runs[0].Limit.Kind != work.LimitUsage {
		t.Fatalf("hive status --json (exit %d, %v) shows no usage limit's wait:\n%s", code, err, status)
	}
	if d := runs[0].Limit.Until.Sub(clock.Now()); d <= 0 || d > 2*time.Minute+2*time.Second {
		t.Errorf("hive status --json: the wait ends %v from now on the run's clock, want within the two minutes codex said", d)
	}
	clock.AdvanceToTimer(t, 30*time.Second) // the wake (the only timer the run sets), 30 s or more ahead: codex says the reset to the minute

	r := <-done
	if r.err != nil {
		t.Fatalf("runner.Run: %v\n%s", r.err, obs)
	}
	if s := r.res.Snapshot; !s.Finished || s.Outcome != phase.OutcomeComplete {
		t.Fatalf("outcome %q\n%s", s.Outcome, obs)
	}
	said := obs.String()
	if !strings.Contains(said, "the wait for the provider's usage limit is over") || strings.Contains(said, "retry 1 of") {
		t.Errorf("the run did not wait for the reset, or spent a retry:\n%s", said)
	}
	e2etest.CheckSixPlans(t, root)
}
