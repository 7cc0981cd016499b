package fakeanthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

func assistant(text string) any { return map[string]any{"role": "assistant", "content": text} }

// ContextGrowth adds its tokens per assistant message of the conversation
// to what is read from the cache, in the reply and in the record alike.
func TestContextGrowth(t *testing.T) {
	s := New(t, Script{ContextGrowth: 50000, NoPromptCache: true, Rules: []Rule{{Name: "any", Reply: Static(Text("ok"))}}})
	convs := [][]any{
		{user("start")},
		{user("start"), assistant("ok"), user("go on")},
		{user("start"), assistant("ok"), user("go on"), assistant("ok"), user("and on")},
	}
	for i, msgs := range convs {
		resp := post(t, s.URL()+"/v1/messages", body(false, true, msgs...))
		var msg struct{ Usage Usage }
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		rec := s.Requests()[i]
		if rec.Inflation != 50000*i || msg.Usage != rec.Usage {
			t.Errorf("request %d: inflation %d, reply usage %+v, recorded %+v", i, rec.Inflation, msg.Usage, rec.Usage)
		}
		if rec.Usage.CacheReadInputTokens != rec.Inflation || rec.Usage.AllInput() != rec.InputTokens+rec.Inflation {
			t.Errorf("request %d: usage %+v is not the estimate %d plus the inflation %d", i, rec.Usage, rec.InputTokens, rec.Inflation)
		}
	}
}

// A compaction request is answered with an analysis and a summary that
// quotes the user's prompts; it consumes no rule and is not a main request.
func TestCompactionRequest(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Name: "once", Times: 1, Reply: Static(Text("scripted"))}}})
	ask := "CRITICAL: Respond with TEXT ONLY.\n\nREMINDER: Do NOT call any tools. " + CompactionMarker + ". Tool calls will be rejected and you will fail the task."
	resp := post(t, s.URL()+"/v1/messages", body(false, true,
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>\ngit status\n</system-reminder>"},
			map[string]any{"type": "text", "text": "Execute plan 01-02"}}},
		assistant("working"), user(ask)))
	var msg struct {
		Content []struct{ Text string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || len(msg.Content) != 1 {
		t.Fatalf("reply %+v, %v", msg, err)
	}
	text := msg.Content[0].Text
	a, sum := strings.Index(text, "<analysis>"), strings.Index(text, "<summary>")
	if a != 0 || sum < a || !strings.HasSuffix(text, "</summary>") || !strings.Contains(text[sum:], "Execute plan 01-02") || strings.Contains(text, "git status") {
		t.Errorf("summary reply = %q", text)
	}
	post(t, s.URL()+"/v1/messages", body(false, true, user("next")))
	reqs := s.Requests()
	if !reqs[0].Compact || reqs[0].Rule != "" || reqs[1].Compact || reqs[1].Rule != "once" {
		t.Errorf("requests: compact %v rule %q, then compact %v rule %q", reqs[0].Compact, reqs[0].Rule, reqs[1].Compact, reqs[1].Rule)
	}
	if len(s.MainRequests()) != 1 || len(s.Compactions()) != 1 {
		t.Errorf("main %d compactions %d, want 1 and 1", len(s.MainRequests()), len(s.Compactions()))
	}
}
