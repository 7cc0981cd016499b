package claude_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/work"
)

// TestClaudeLimits runs the real Claude Code against API errors and checks
// that its adapter tells the provider's errors apart: a subscription's
// usage limit with its reset (the anthropic-ratelimit-unified-* headers
// the API sends, read by Claude Code when it is logged in with an OAuth
// token), a rate limit, an overload and a refused key.
func TestClaudeLimits(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	reset := time.Now().Add(2 * time.Minute).Truncate(time.Second)
	epoch := strconv.FormatInt(reset.Unix(), 10)
	unified := http.Header{
		"Anthropic-Ratelimit-Unified-Status":               {"rejected"},
		"Anthropic-Ratelimit-Unified-Reset":                {epoch},
		"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"},
		"Anthropic-Ratelimit-Unified-5h-Status":            {"rejected"},
		"Anthropic-Ratelimit-Unified-5h-Reset":             {epoch},
		"Anthropic-Ratelimit-Unified-5h-Utilization":       {"1.0"},
	}
	oauth := []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test"}
	for _, c := range []struct {
		name  string
		reply fa.Reply
		env   []string
		want  agent.Limit
	}{
		{"usage limit", fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.", Header: unified}, oauth,
			agent.Limit{Kind: work.LimitUsage, Status: 429, Reset: reset.UTC(), Window: "five_hour"}},
		{"rate limit", fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit", Header: http.Header{"Retry-After": {"30"}}}, oauth,
			agent.Limit{Kind: work.LimitRate, Status: 429}},
		{"overloaded", fa.Reply{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}, nil,
			agent.Limit{Kind: work.LimitOverload, Status: 529}},
		{"key refused", fa.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"}, nil,
			agent.Limit{Kind: work.LimitAuth, Status: 401}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := fa.New(t, fa.Script{Rules: []fa.Rule{{Name: "error", Match: func(*fa.Conversation) bool { return true }, Reply: fa.Static(c.reply)}}})
			home := t.TempDir()
			launcher := agent.Claude{Path: bin, Env: append(e2etest.ClaudeEnv(s.URL(), home), c.env...), PermissionMode: "dontAsk"}
			results := e2etest.TurnResults(t, launcher, home)
			if len(results) != 1 || !results[0].IsError || results[0].Limit == nil {
				t.Fatalf("results %+v", results)
			}
			if got := *results[0].Limit; got != c.want {
				t.Errorf("limit %+v, want %+v (the turn said %q)", got, c.want, results[0].Text)
			}
		})
	}
}
