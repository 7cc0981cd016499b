package codex_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/work"
)

// TestCodexLimits runs the real codex against API errors and checks that
// its adapter tells the provider's errors apart: the account's usage
// limit with the time of day it resets, a rate limit, an overload and a
// refused key. The usage limit resets 2h13m ahead (said as a time of
// day, dated when that is past midnight) and 26 hours ahead (dated).
func TestCodexLimits(t *testing.T) {
	t.Parallel()
	bin := fakeopenai.CodexBinary(t)
	for _, c := range []struct {
		name  string
		reply fakeopenai.Reply
		want  work.LimitKind
		reset time.Duration
	}{
		// codex reads resets_at, not resets_in_seconds: made when the
		// request comes (a subtest may wait minutes for its slot).
		{"usage limit", usageLimit(7980 * time.Second), work.LimitUsage, 7980 * time.Second},
		{"usage limit tomorrow", usageLimit(26 * time.Hour), work.LimitUsage, 26 * time.Hour},
		{"rate limit", fakeopenai.Reply{Status: 429, Error: "Rate limit reached for tokens per min (TPM)", ErrorType: "tokens"}, work.LimitRate, 0},
		{"overloaded", fakeopenai.Reply{Status: 500, Error: "overloaded", ErrorType: "server_error"}, work.LimitOverload, 0},
		{"key refused", fakeopenai.Reply{Status: 401, Error: "Incorrect API key provided"}, work.LimitAuth, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Script{{Name: "error", TurnToolOutputs: fakeopenai.Any, Reply: c.reply}})
			home := t.TempDir()
			launcher := adapter.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
				Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + home, "HOME=" + home}}
			start := time.Now()
			results := e2etest.TurnResults(t, launcher, home)
			// codex says the error twice (an error event, then turn.failed).
			if len(results) == 0 || results[len(results)-1].Limit == nil {
				t.Fatalf("results %+v", results)
			}
			l := results[len(results)-1].Limit
			if l.Kind != c.want {
				t.Errorf("limit %+v, want kind %s (the turn said %q)", *l, c.want, results[len(results)-1].Text)
			}
			if c.reset > 0 {
				// Said to the minute.
				at := l.ResetAt(start)
				if d := at.Sub(start); d < c.reset-2*time.Minute || d > c.reset+2*time.Minute {
					t.Errorf("reset at %v, %v after the start; want about %v (%+v; the turn said %q)", at, d, c.reset, *l, results[len(results)-1].Text)
				}
			}
		})
	}
}

// TestUsageLimitRealCodex: the account's usage limit answers plan 01-01's
// second request (its second task) with the real codex, resetting 2.5
// minutes ahead. The run waits for the reset (the test moves the run's
// clock past it: codex keeps no wait of its own), then 01-01 goes on from
// its commit with a continuation, and the run completes with every task
// committed once and no retry spent (retries.agent is 0: a limit that
// spent one would fail its plan).
func TestUsageLimitRealCodex(t *testing.T) {
	t.Parallel()
	clock := &testsupport.Clock{}
	// The wait: the run's one timer (only a wake sets one), 30 s or more
	// ahead (codex says the reset to the minute, so a reset 150 s ahead is
	// said as one up to a minute sooner, and the run reaches it later).
	go clock.AdvanceToTimer(t, 30*time.Second)
	said := runCodexPhase(t, true, func(s *fakeopenai.Script, o *runner.Options) int {
		key := "- Plan: " + phaseDir + "/01-01-PLAN.md"
		tasks := executorTasks["01-01"]
		cont := "You continue plan 01-01"
		*s = append(fakeopenai.Script{
			{Name: "usage limit", UserText: key, TurnToolOutputs: 1, Times: 1, Reply: usageLimit(150 * time.Second)},
			// The continuation does task 2, the SUMMARY, then reports.
			{Name: "01-01 continued: task 2", UserText: cont, TurnToolOutputs: 0, Times: 1, Reply: fakeopenai.Run(e2etest.TaskCmd("01-01", 2, tasks[1]))},
			{Name: "01-01 continued: summary", UserText: cont, TurnToolOutputs: 1, Times: 1, Reply: fakeopenai.Run(e2etest.SummaryCmd(phaseDir, "01-01", tasks))},
			{Name: "01-01 continued: report", UserText: cont, TurnToolOutputs: 2, Times: 1, Reply: fakeopenai.Say(e2etest.FinalText(phaseDir, "01-01", tasks))},
		}, *s...)
		o.Now, o.After = clock.Now, clock.After
		o.Agents.Retries = 0
		// The clock jumps past the reset: the agents at work must not
		// seem silent for that long.
		o.Agents.Stall = 10 * time.Minute
		return 1 // the request the limit answered
	})
	if !strings.Contains(said, "waiting for the usage limit's reset at") || !strings.Contains(said, "the wait for the provider's usage limit is over") {
		t.Errorf("the run did not wait for the reset:\n%s", said)
	}
}
