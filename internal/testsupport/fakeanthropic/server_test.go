package fakeanthropic

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(raw)))
	req.Header.Set("x-api-key", "secret")
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func body(stream bool, tools bool, msgs ...any) map[string]any {
	b := map[string]any{"model": "claude-test", "max_tokens": 100, "stream": stream,
		"system": []any{map[string]any{"type": "text", "text": "You are a test."}}, "messages": msgs}
	if tools {
		b["tools"] = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}
	}
	return b
}

func user(text string) any { return map[string]any{"role": "user", "content": text} }

func TestNonStreaming(t *testing.T) {
	s := New(t, Script{Rules: []Rule{
		{Name: "bash", Match: LastUserContains("run"), Reply: Static(Blocks(TextBlock("ok"), ToolUse("Bash", map[string]any{"command": "ls"})))},
	}})
	resp := post(t, s.URL()+"/v1/messages", body(false, true, user("please run ls")))
	var msg struct {
		Type       string           `json:"type"`
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      map[string]int   `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || msg.Type != "message" || len(msg.Content) != 2 || msg.StopReason != "tool_use" ||
		msg.Content[1]["name"] != "Bash" || msg.Usage["input_tokens"] <= 0 {
		t.Fatalf("got %d %+v", resp.StatusCode, msg)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("X-Api-Key") != "REDACTED" || reqs[0].Body["model"] != "claude-test" || reqs[0].Rule != "bash" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestStreamingEvents(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Reply: Static(Blocks(TextBlock(strings.Repeat("é", 50)), ToolUse("Write", map[string]any{"file_path": "/x", "content": strings.Repeat("y", 100)})))}}})
	resp := post(t, s.URL()+"/v1/messages", body(true, true, user("go")))
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content-type %q", ct)
	}
	var events []string
	var text, js string
	var stop string
	sc := bufio.NewScanner(resp.Body)
	var name string
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			name = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			var d struct {
				Type  string `json:"type"`
				Delta struct {
					Type, Text, PartialJSON, StopReason string
				} `json:"delta"`
			}
			raw := strings.TrimPrefix(l, "data: ")
			var m map[string]any
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				t.Fatalf("bad data %q", raw)
			}
			json.Unmarshal([]byte(raw), &d)
			if d.Type != name {
				t.Fatalf("event %q carries type %q", name, d.Type)
			}
			if delta, ok := m["delta"].(map[string]any); ok {
				if v, ok := delta["text"].(string); ok {
					text += v
				}
				if v, ok := delta["partial_json"].(string); ok {
					js += v
				}
				if v, ok := delta["stop_reason"].(string); ok {
					stop = v
				}
			}
			if name != "content_block_delta" {
				events = append(events, name)
			}
		}
	}
	want := "message_start ping content_block_start content_block_stop content_block_start content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events %q\nwant   %q", got, want)
	}
	var input map[string]any
	if text != strings.Repeat("é", 50) || json.Unmarshal([]byte(js), &input) != nil || input["file_path"] != "/x" || stop != "tool_use" {
		t.Errorf("text %q json %q stop %q", text, js, stop)
	}
}

func TestSideRequestsDoNotConsumeRules(t *testing.T) {
	s := New(t, Script{Rules: []Rule{
		{Name: "first", Times: 1, Reply: Static(Text("one"))},
		{Name: "second", Reply: Static(Text("two"))},
	}})
	post(t, s.URL()+"/v1/messages", body(false, false, user("title please"))) // no tools: side
	post(t, s.URL()+"/v1/messages", body(false, true, user("a")))
	post(t, s.URL()+"/v1/messages", body(false, true, user("b")))
	post(t, s.URL()+"/v1/messages/count_tokens", body(false, true, user("count me")))
	post(t, s.URL()+"/v1/other", map[string]any{})
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.Path+":"+r.Rule)
	}
	want := "/v1/messages: /v1/messages:first /v1/messages:second /v1/messages/count_tokens: /v1/other:"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %q\nwant %q", strings.Join(got, " "), want)
	}
	if !s.Requests()[0].Side || len(s.MainRequests()) != 2 || len(s.UnknownPaths()) != 1 {
		t.Errorf("side/main/unknown classification wrong: %+v", s.UnknownPaths())
	}
}

func TestErrorReply(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Reply: Static(Reply{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "busy"})}}})
	resp := post(t, s.URL()+"/v1/messages", body(true, true, user("x")))
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 529 || e.Type != "error" || e.Error.Type != "overloaded_error" {
		t.Errorf("got %d %+v", resp.StatusCode, e)
	}
}

func TestStepsAcrossPrompts(t *testing.T) {
	c := &Conversation{Messages: []Message{
		{Role: "user", Content: []ContentBlock{{Type: "text", Text: "<system-reminder>x</system-reminder>"}, {Type: "text", Text: "Do task 1"}}},
		{Role: "system", Content: []ContentBlock{{Type: "text", Text: "env"}}},
		{Role: "assistant", Content: []ContentBlock{{Type: "tool_use", Name: "Write"}}},
		{Role: "user", Content: []ContentBlock{{Type: "tool_result", Text: "ok"}}},
	}}
	if n := assistantSincePrompt(c, "Do task 1"); n != 1 {
		t.Errorf("steps since prompt = %d, want 1", n)
	}
	if n := assistantSincePrompt(c, "other"); n != -1 {
		t.Errorf("steps for other prompt = %d, want -1", n)
	}
	if c.UserPrompts() != 1 || c.AssistantTurns() != 1 || len(c.LastToolResults()) != 1 {
		t.Errorf("prompts %d turns %d results %d", c.UserPrompts(), c.AssistantTurns(), len(c.LastToolResults()))
	}
}
