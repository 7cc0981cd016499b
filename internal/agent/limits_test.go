package agent

import (
	"testing"
	"time"

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
		want  *Limit
	}{
		{"usage limit (subscription)", []string{
			`{"type":"rate_limit_event","rate_limit_info":{"isUsingOverage":false,"rateLimitType":"five_hour","resetsAt":1796214619,"status":"rejected"},"session_id":"s"}`,
			`{"type":"assistant","api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"rateLimitType":"five_hour","resetsAt":1796214619,"status":"rejected"}},"api_error_status":429,"api_error_type":"rate_limit_error","error":"rate_limit","message":{"content":[{"text":"You've hit your 5-hour limit · resets 12:30pm (UTC)","type":"text"}],"model":"<synthetic>"}}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error":"usage_limit_reached","api_error_status":429,"api_error_type":"rate_limit_error","result":"You've hit your 5-hour limit · resets 12:30pm (UTC)","terminal_reason":"api_error"}`,
		}, &Limit{Kind: work.LimitUsage, Status: 429, Reset: time.Unix(reset, 0).UTC(), Window: "five_hour"}},
		{"usage limit, reset only in the message", []string{
			`{"type":"assistant","api_error":"usage_limit_reached","api_error_params":{"rate_limit_info":{"rateLimitType":"seven_day","resetsAt":1796214619,"status":"rejected"}},"api_error_status":429,"message":{"content":[{"text":"You've hit your weekly limit","type":"text"}],"model":"<synthetic>"}}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error":"usage_limit_reached","api_error_status":429,"api_error_type":"rate_limit_error","result":"You've hit your weekly limit"}`,
		}, &Limit{Kind: work.LimitUsage, Status: 429, Reset: time.Unix(reset, 0).UTC(), Window: "seven_day"}},
		{"rate limit (subscription, not the usage limit)", []string{
			`{"type":"rate_limit_event","rate_limit_info":{"isUsingOverage":false,"status":"rejected"},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Server is temporarily limiting requests (not your usage limit) · Number of request tokens has exceeded your per-minute rate limit"}`,
		}, &Limit{Kind: work.LimitRate, Status: 429}},
		{"rate limit (API key)", []string{
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}`,
		}, &Limit{Kind: work.LimitRate, Status: 429}},
		{"overloaded", []string{
			`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":598,"error_status":529,"error":"overloaded"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"api_error_type":"overloaded_error","result":"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."}`,
		}, &Limit{Kind: work.LimitOverload, Status: 529}},
		{"login refused", []string{
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"api_error_type":"authentication_error","result":"Invalid API key · Fix external API key"}`,
		}, &Limit{Kind: work.LimitAuth, Status: 401}},
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
			var got *Limit
			results := 0
			for _, l := range tt.lines {
				outs, err := m.outputs([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range outs {
					if o.Kind == OutResult {
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
		want *Limit
	}{
		{"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:31 PM.",
			&Limit{Kind: work.LimitUsage, Status: 429, Clock: "2:31 PM"}},
		// A reset that is not today (codex 0.169.0, measured at 23:45 UTC).
		{"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 3rd, 2026 1:56 AM.",
			&Limit{Kind: work.LimitUsage, Status: 429, Clock: "Dec 3rd, 2026 1:56 AM"}},
		{"exceeded retry limit, last status: 429 Too Many Requests", &Limit{Kind: work.LimitRate}},
		{"We’re currently experiencing high demand, which may cause temporary errors.", &Limit{Kind: work.LimitOverload}},
		{"unexpected status 503 Service Unavailable: Service Unavailable, url: http://127.0.0.1:40209/v1/responses", &Limit{Kind: work.LimitOverload}},
		{"unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:45623/v1/responses", &Limit{Kind: work.LimitAuth}},
		{"You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.",
			&Limit{Kind: work.LimitUsage, Status: 429, After: 65*time.Hour + 14*time.Minute}},
		{"You've hit your usage limit. Try again in 4 days 20 hours 9 minutes.", &Limit{Kind: work.LimitUsage, Status: 429, After: 116*time.Hour + 9*time.Minute}},
		{"usage_limit_reached: The usage limit has been reached", &Limit{Kind: work.LimitUsage, Status: 429}},
		{"the command failed: exit 1", nil},
	} {
		got := codexLimit(tt.msg)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("codexLimit(%q) = %+v, want %+v", tt.msg, got, tt.want)
		}
	}
}

func TestResetAt(t *testing.T) {
	utc := time.Date(2026, 12, 2, 12, 18, 30, 0, time.UTC)
	for _, tt := range []struct {
		l    Limit
		want time.Time
	}{
		{Limit{Reset: time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)}, time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)},
		{Limit{After: 2*time.Hour + 13*time.Minute}, utc.Add(2*time.Hour + 13*time.Minute)},
		{Limit{Clock: "2:31 PM"}, time.Date(2026, 12, 2, 14, 31, 0, 0, time.UTC)},
		{Limit{Clock: "11:05 am"}, time.Date(2026, 12, 3, 11, 5, 0, 0, time.UTC)}, // passed today: tomorrow
		{Limit{Clock: "Dec 3rd, 2026 1:56 AM"}, time.Date(2026, 12, 3, 1, 56, 0, 0, time.UTC)},
		{Limit{Clock: "Jan 1st, 2027 12:05 PM"}, time.Date(2027, 1, 1, 12, 5, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 22nd, 2026 9:00 am"}, time.Date(2026, 12, 22, 9, 0, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 11th, 2026 11:00 PM"}, time.Date(2026, 12, 11, 23, 0, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 33rd, 2026 1:56 AM"}, time.Time{}},
		{Limit{Clock: "25:99 PM"}, time.Time{}},
		{Limit{}, time.Time{}},
	} {
		if got := tt.l.ResetAt(utc); !got.Equal(tt.want) {
			t.Errorf("%+v.ResetAt = %v, want %v", tt.l, got, tt.want)
		}
	}
}
