package codex_test

import (
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/work"
)

// TestCodexLimits runs the real codex against API errors and checks that
// its adapter tells the provider's errors apart: the account's usage
// limit with the time of day it resets, a rate limit, an overload and a
// refused key.
func TestCodexLimits(t *testing.T) {
	t.Parallel()
	bin := fakeopenai.CodexBinary(t)
	resets := time.Now().Add(7980 * time.Second).Unix() // codex reads resets_at, not resets_in_seconds
	for _, c := range []struct {
		name  string
		reply fakeopenai.Reply
		want  work.LimitKind
	}{
		{"usage limit", fakeopenai.Reply{Status: 429, Error: "The usage limit has been reached", ErrorType: "usage_limit_reached",
			ErrorFields: map[string]any{"plan_type": "plus", "resets_at": resets, "resets_in_seconds": 7980}}, work.LimitUsage},
		{"rate limit", fakeopenai.Reply{Status: 429, Error: "Rate limit reached for tokens per min (TPM)", ErrorType: "tokens"}, work.LimitRate},
		{"overloaded", fakeopenai.Reply{Status: 500, Error: "overloaded", ErrorType: "server_error"}, work.LimitOverload},
		{"key refused", fakeopenai.Reply{Status: 401, Error: "Incorrect API key provided"}, work.LimitAuth},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.Script{{Name: "error", TurnToolOutputs: fakeopenai.Any, Reply: c.reply}})
			home := t.TempDir()
			launcher := agent.Codex{Path: bin, Model: fakeopenai.Model, Args: srv.CodexConfig(),
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
			if c.want == work.LimitUsage {
				// 7,980 s ahead, said as a time of day to the minute.
				at := l.ResetAt(start)
				if d := at.Sub(start); d < 7980*time.Second-2*time.Minute || d > 7980*time.Second+2*time.Minute {
					t.Errorf("reset at %v, %v after the start; want about 2h13m (%+v)", at, d, *l)
				}
			}
		})
	}
}
