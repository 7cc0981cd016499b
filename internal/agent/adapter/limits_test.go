package adapter

import (
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/work"
)

// Claude Code 2.1.330's lines for each API error, as it printed them
// against the fake Anthropic server (TestClaudeLimits in e2e/claude runs
// the CLI itself), trimmed to the fields hive reads.
func TestClaudeLimits(t *testing.T) {
	const reset = 1796214619
	for _, tt := range []struct {
		name  string
		lines []string
		want  *agent.Limit
	}{
		{"usage limit (subscription)", []string{
			`{"type":"rate_limit_event","rate_limit_info":{"isUsingOverage":false,"rateLimitType":"five_hour","resetsAt":1796214619,"status":"rejected"},"session_id":"s"}`,
			`{"type":"assistant","api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"rateLimitType":"five_hour","resetsAt":1796214619,"status":"rejected"}},"api_error_status":429,"api_error_type":"rate_limit_error","error":"rate_limit","message":{"content":[{"text":"You've hit your 5-hour limit · resets 12:30pm (UTC)","type":"text"}],"model":"<synthetic>"}}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error":"usage_limit_reached","api_error_status":429,"api_error_type":"rate_limit_error","result":"You've hit your 5-hour limit · resets 12:30pm (UTC)","terminal_reason":"api_error"}`,
		}, &agent.Limit{Kind: work.LimitUsage, Status: 429, Reset: time.Unix(reset, 0).UTC(), Window: "five_hour"}},
		{"usage limit, reset only in the message", []string{
			`{"type":"assistant","api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"rateLimitType":"seven_day","resetsAt":1796214619,"status":"rejected"}},"api_error_status":429,"message":{"content":[{"text":"You've hit your weekly limit","type":"text"}],"model":"<synthetic>"}}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error":"usage_limit_reached","api_error_status":429,"api_error_type":"rate_limit_error","result":"You've hit your weekly limit"}`,
		}, &agent.Limit{Kind: work.LimitUsage, Status: 429, Reset: time.Unix(reset, 0).UTC(), Window: "seven_day"}},
		{"rate limit (subscription, not the usage limit)", []string{
			`{"type":"rate_limit_event","rate_limit_info":{"isUsingOverage":false,"status":"rejected"},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Server is temporarily limiting requests (not your usage limit) · Number of request tokens has exceeded your per-minute rate limit"}`,
		}, &agent.Limit{Kind: work.LimitRate, Status: 429}},
		{"rate limit (API key)", []string{
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}`,
		}, &agent.Limit{Kind: work.LimitRate, Status: 429}},
		{"overloaded", []string{
			`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":598,"error_status":529,"error":"overloaded"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"api_error_type":"overloaded_error","result":"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."}`,
		}, &agent.Limit{Kind: work.LimitOverload, Status: 529}},
		{"login refused", []string{
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"api_error_type":"authentication_error","result":"Invalid API key · Fix external API key"}`,
		}, &agent.Limit{Kind: work.LimitAuth, Status: 401}},
		{"the agent's own error", []string{
			`{"type":"result","subtype":"error_max_turns","is_error":true,"result":"max turns"}`,
		}, nil},
		{"a turn that ended well after a warning", []string{
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796214619,"rateLimitType":"five_hour"}}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"done"}`,
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m turnMeter
			var got *agent.Limit
			results := 0
			for _, l := range tt.lines {
				outs, err := m.outputs([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range outs {
					if o.Kind == agent.OutResult {
						got, results = o.Limit, results+1
					}
				}
			}
			switch {
			case results != 1:
				t.Fatalf("%d results", results)
			case (got == nil) != (tt.want == nil):
				t.Fatalf("limit %+v, want %+v", got, tt.want)
			case got != nil && *got != *tt.want:
				t.Errorf("limit %+v, want %+v", *got, *tt.want)
			}
		})
	}
}

// What codex says when a turn fails on the provider: the first five as
// codex 0.169.0 printed them against the fake OpenAI server.
func TestCodexLimits(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want *agent.Limit
	}{
		{"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:31 PM.",
			&agent.Limit{Kind: work.LimitUsage, Status: 429, Clock: "2:31 PM"}},
		// A reset that is not today (codex 0.169.0, measured at 23:45 UTC).
		{"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 3rd, 2026 1:56 AM.",
			&agent.Limit{Kind: work.LimitUsage, Status: 429, Clock: "Dec 3rd, 2026 1:56 AM"}},
		{"exceeded retry limit, last status: 429 Too Many Requests", &agent.Limit{Kind: work.LimitRate}},
		{"We’re currently experiencing high demand, which may cause temporary errors.", &agent.Limit{Kind: work.LimitOverload}},
		{"unexpected status 503 Service Unavailable: Service Unavailable, url: http://127.0.0.1:40209/v1/responses", &agent.Limit{Kind: work.LimitOverload}},
		{"unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:45623/v1/responses", &agent.Limit{Kind: work.LimitAuth}},
		{"You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.",
			&agent.Limit{Kind: work.LimitUsage, Status: 429, After: 65*time.Hour + 14*time.Minute}},
		{"You've hit your usage limit. Try again in 4 days 20 hours 9 minutes.", &agent.Limit{Kind: work.LimitUsage, Status: 429, After: 116*time.Hour + 9*time.Minute}},
		{"usage_limit_reached: The usage limit has been reached", &agent.Limit{Kind: work.LimitUsage, Status: 429}},
		{"the command failed: exit 1", nil},
	} {
		got := codexLimit(tt.msg)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("codexLimit(%q) = %+v, want %+v", tt.msg, got, tt.want)
		}
	}
}
