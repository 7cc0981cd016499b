package fakeanthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

// cached is a text block that is a cache breakpoint.
func cached(text string) map[string]any {
	return map[string]any{"type": "text", "text": text, "cache_control": map[string]any{"type": "ephemeral"}}
}

func cacheBody(system string, msgs ...any) map[string]any {
	return map[string]any{"model": "claude-test", "max_tokens": 100, "stream": false,
		"system": []any{cached(system)}, "messages": msgs,
		"tools": []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}}
}

// turn is a message whose last block is a breakpoint, as Claude Code marks
// the newest message of every request.
func turn(role, text string) any {
	return map[string]any{"role": role, "content": []any{cached(text)}}
}

func plain(role, text string) any {
	return map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}}
}

func TestPromptCache(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Name: "any", Reply: Static(Text("ok"))}}})
	system := strings.Repeat("stable role prompt. ", 300) // 6000 characters: 1500 tokens
	long := strings.Repeat("the plan and its context. ", 200)
	bodies := []map[string]any{
		// 1: nothing cached yet: the system and the first message are written.
		cacheBody(system, turn("user", long)),
		// 2: the same session one exchange later: reads request 1's prefix
		// (its breakpoint is now two blocks back), writes the new tail.
		cacheBody(system, plain("user", long), plain("assistant", "ok"), turn("user", "go on")),
		// 3: another session with the same role prompt: reads the system.
		cacheBody(system, turn("user", "something else entirely")),
		// 4: one byte of the system changed: nothing to read.
		cacheBody(system+".", turn("user", "hi")),
		// 5: too short to be cached at all.
		cacheBody("short", turn("user", "hi")),
	}
	for _, b := range bodies {
		post(t, s.URL()+"/v1/messages", b)
	}
	reqs := s.MainRequests()
	if len(reqs) != len(bodies) {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	for i, r := range reqs {
		if got := r.Usage.AllInput(); got != r.InputTokens {
			t.Errorf("request %d: input %+v adds up to %d, the estimate is %d", i+1, r.Usage, got, r.InputTokens)
		}
		if r.Usage.OutputTokens <= 0 {
			t.Errorf("request %d: no output billed: %+v", i+1, r.Usage)
		}
	}
	sys := len(system) / 4
	first := (len(system) + len(long)) / 4
	want := []struct{ read, write int }{
		{0, first},
		{first, (len(system)+len(long)+len("ok")+len("go on"))/4 - first},
		{sys, (len(system)+len("something else entirely"))/4 - sys},
		{0, (len(system) + len(".hi")) / 4},
		{0, 0},
	}
	for i, w := range want {
		u := reqs[i].Usage
		if u.CacheReadInputTokens != w.read || u.CacheCreationInputTokens != w.write {
			t.Errorf("request %d: read %d, wrote %d; want read %d, wrote %d (%+v)", i+1,
				u.CacheReadInputTokens, u.CacheCreationInputTokens, w.read, w.write, u)
		}
	}
	if reqs[4].Usage.InputTokens != reqs[4].InputTokens {
		t.Errorf("a short prompt is plain input: %+v", reqs[4].Usage)
	}
}

// The reply reports what was billed, and a scripted costly turn reports
// its output tokens.
func TestUsageReported(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Name: "costly", Reply: Static(Reply{Blocks: []Block{TextBlock("done")}, OutputTokens: 250000})}}})
	system := strings.Repeat("x", 8000)
	for range 2 {
		resp := post(t, s.URL()+"/v1/messages", cacheBody(system, turn("user", "hi")))
		var msg struct {
			Usage Usage `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		if msg.Usage.OutputTokens != 250000 {
			t.Fatalf("reply usage %+v", msg.Usage)
		}
	}
	reqs := s.MainRequests()
	if reqs[1].Usage.CacheReadInputTokens != 2000 || reqs[0].Usage.CacheCreationInputTokens == 0 {
		t.Fatalf("billed %+v then %+v", reqs[0].Usage, reqs[1].Usage)
	}
}

// A message sent as a string is the same content as one text block: the
// marker moving off it does not change the prefix.
func TestPromptCacheStringContent(t *testing.T) {
	s := New(t, Script{Rules: []Rule{{Name: "any", Reply: Static(Text("ok"))}}})
	system := strings.Repeat("stable role prompt. ", 300)
	env := strings.Repeat("environment. ", 100)
	post(t, s.URL()+"/v1/messages", cacheBody(system, plain("user", "hi"), turn("system", env)))
	post(t, s.URL()+"/v1/messages", cacheBody(system, plain("user", "hi"),
		map[string]any{"role": "system", "content": env}, plain("assistant", "ok"), turn("user", "more")))
	r := s.MainRequests()
	if want := (len(system) + len("hi") + len(env)) / 4; r[1].Usage.CacheReadInputTokens != want {
		t.Fatalf("read %d, want the whole first request (%d): %+v", r[1].Usage.CacheReadInputTokens, want, r[1].Usage)
	}
}
