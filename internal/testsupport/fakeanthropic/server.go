package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Request is one HTTP request received by the Server, as recorded by
// Server.Requests.
type Request struct {
	Method string
	Path   string
	Query  string
	// Header holds the request headers with secrets (x-api-key,
	// authorization, cookies) replaced by "REDACTED".
	Header http.Header
	// Body is the parsed JSON body (nil when the body is empty or not JSON).
	Body map[string]any
	// RawBody is the body as received.
	RawBody []byte

	// The fields below are filled for POST /v1/messages only.

	// Conv is the conversation the request carries.
	Conv *Conversation
	// Side reports that the request was classified as a side request
	// (see Script.IsSide) and answered by Script.Side.
	Side bool
	// Compact reports that the request was Claude Code's request for a
	// summary of the conversation (see IsCompaction), answered by
	// Script.Compact.
	Compact bool
	// Rule is the name of the rule that answered ("" for side and
	// compaction requests, "<unmatched>" when no rule matched).
	Rule string
	// InputTokens is the estimate of the request's whole input (cached or
	// not); Usage is what the reply billed, split by the prompt cache.
	InputTokens int
	Usage       Usage
	// Inflation is what Script.ContextGrowth added to the usage, counted
	// in Usage.CacheReadInputTokens: Usage.AllInput() is InputTokens plus
	// Inflation.
	Inflation int
	// MessageID is the id of the reply message ("msg_fake_0007"), by which
	// a client's output names it.
	MessageID string
}

// Server is a fake Anthropic Messages API served by httptest.
type Server struct {
	t      reporter
	srv    *httptest.Server
	script Script

	mu       sync.Mutex
	cache    promptCache
	reqs     []Request
	fired    map[int]int // rule index -> number of times fired
	seq      int
	closed   bool
	unknowns []string
}

// New starts a Server answering with script. The server is closed
// automatically at the end of the test.
func New(t testing.TB, script Script) *Server {
	t.Helper()
	s := &Server{t: t, script: script, fired: map[int]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// reporter is where the server reports surprises: the test, or a Start caller.
type reporter interface {
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

// Start starts a Server outside a test (`hive bench` measures the real
// CLI against it): surprises go to logf, and the caller must Close it.
func Start(script Script, logf func(format string, args ...any)) *Server {
	s := &Server{t: logReporter(logf), script: script, fired: map[int]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

type logReporter func(format string, args ...any)

func (l logReporter) Logf(format string, args ...any)   { l(format, args...) }
func (l logReporter) Errorf(format string, args ...any) { l(format, args...) }

// URL is the base URL to put in ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down. It is safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MainRequests returns the POST /v1/messages requests that were answered
// by the script's rules (not side or compaction requests).
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Conv != nil && !r.Side && !r.Compact {
			out = append(out, r)
		}
	}
	return out
}

// Compactions returns the compaction requests (see IsCompaction) received
// so far, in arrival order.
func (s *Server) Compactions() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Compact {
			out = append(out, r)
		}
	}
	return out
}

// UnknownPaths lists "METHOD /path" of requests the server had no
// specific handler for (answered with an empty JSON object).
func (s *Server) UnknownPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unknowns...)
}

var secretHeaders = map[string]bool{
	"X-Api-Key":           true,
	"Authorization":       true,
	"Cookie":              true,
	"Proxy-Authorization": true,
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h := r.Header.Clone()
	for k := range h {
		if secretHeaders[http.CanonicalHeaderKey(k)] {
			h[k] = []string{"REDACTED"}
		}
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: h, RawBody: body}
	if len(body) > 0 {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			rec.Body = m
		}
	}
	w.Header().Set("request-id", fmt.Sprintf("req_fake_%d", time.Now().UnixNano()))

	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r, rec)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		conv, err := parseConversation(body)
		n := 1
		if err == nil {
			n = conv.EstimateTokens()
		}
		s.record(rec)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
	case r.URL.Path == "/api/hello":
		// Connectivity probe Claude Code sends (HEAD) unless
		// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set.
		s.record(rec)
		w.WriteHeader(http.StatusOK)
	default:
		s.mu.Lock()
		s.unknowns = append(s.unknowns, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		s.record(rec)
		s.t.Logf("fakeanthropic: unknown request %s %s", r.Method, r.URL.String())
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

func (s *Server) record(rec Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, rec Request) {
	conv, err := parseConversation(rec.RawBody)
	if err != nil {
		s.record(rec)
		writeJSON(w, http.StatusBadRequest, apiError("invalid_request_error", err.Error()))
		return
	}
	rec.Conv = conv
	rec.InputTokens = conv.EstimateTokens()

	isSide := s.script.IsSide
	if isSide == nil {
		isSide = DefaultIsSide
	}
	var reply Reply
	s.mu.Lock()
	if IsCompaction(conv) {
		// Before the side check: the compaction request offers the main
		// loop's tools, and it must not consume the script's rules.
		rec.Compact = true
		compact := s.script.Compact
		if compact == nil {
			compact = DefaultCompact
		}
		reply = compact(conv)
	} else if isSide(conv) {
		rec.Side = true
		side := s.script.Side
		if side == nil {
			side = DefaultSide
		}
		reply = side(conv)
	} else {
		rec.Rule = "<unmatched>"
		matched := false
		for i, rule := range s.script.Rules {
			if rule.Times > 0 && s.fired[i] >= rule.Times {
				continue
			}
			if rule.Match != nil && !rule.Match(conv) {
				continue
			}
			s.fired[i]++
			rec.Rule = rule.Name
			if rec.Rule == "" {
				rec.Rule = fmt.Sprintf("#%d", i)
			}
			reply = rule.Reply(conv)
			matched = true
			break
		}
		if !matched {
			reply = Text("fakeanthropic: no rule matched")
		}
		if !matched && !s.script.AllowUnmatched {
			s.t.Errorf("fakeanthropic: no rule matched request %d (assistant turns %d, last user text %q)",
				len(s.reqs), conv.AssistantTurns(), truncate(conv.LastUserText(), 200))
		}
	}
	s.seq++
	seq := s.seq
	var msg message
	if reply.Status == 0 { // an error is not billed and caches nothing
		billed := Usage{InputTokens: rec.InputTokens}
		if !s.script.NoPromptCache {
			billed = s.cache.bill(rec.RawBody, rec.InputTokens)
		}
		if s.script.ContextGrowth > 0 {
			// Counted as read from the cache: the history a long session
			// would have sent, cached by its earlier requests.
			rec.Inflation = s.script.ContextGrowth * conv.AssistantTurns()
			billed.CacheReadInputTokens += rec.Inflation
		}
		msg = buildMessage(seq, conv.Model, billed, reply)
		rec.Usage, rec.MessageID = msg.Usage, msg.ID
	}
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Status != 0 {
		typ := reply.ErrorType
		if typ == "" {
			typ = "api_error"
		}
		writeJSON(w, reply.Status, apiError(typ, reply.ErrorMessage))
		return
	}
	if reply.Delay > 0 {
		// A client that hangs up (an agent killed by a test) ends the wait,
		// so the server can close.
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if conv.Stream {
		writeSSE(w, msg)
		return
	}
	writeJSON(w, http.StatusOK, msg)
}

func apiError(typ, msg string) map[string]any {
	if msg == "" {
		msg = "fake error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// message is a Messages API response object.
type message struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        Usage            `json:"usage"`
}

// buildMessage makes the reply r to request seq, billed as in (its output
// tokens are counted here, or taken from r.OutputTokens).
func buildMessage(seq int, model string, in Usage, r Reply) message {
	if model == "" {
		model = "claude-fake"
	}
	stop := r.StopReason
	out := 0
	var content []map[string]any
	for i, b := range r.Blocks {
		switch b.Type {
		case "tool_use":
			id := b.ID
			if id == "" {
				id = fmt.Sprintf("toolu_fake_%04d_%d", seq, i)
			}
			input := b.Input
			if input == nil {
				input = map[string]any{}
			}
			content = append(content, map[string]any{"type": "tool_use", "id": id, "name": b.Name, "input": input})
			raw, _ := json.Marshal(input)
			out += len(raw)/4 + 1
			if stop == "" {
				stop = "tool_use"
			}
		default:
			content = append(content, map[string]any{"type": "text", "text": b.Text})
			out += len(b.Text)/4 + 1
		}
	}
	if content == nil {
		content = []map[string]any{}
	}
	if stop == "" {
		stop = "end_turn"
	}
	if r.OutputTokens > 0 {
		out = r.OutputTokens
	}
	in.OutputTokens = out
	return message{
		ID:         fmt.Sprintf("msg_fake_%04d", seq),
		Type:       "message",
		Role:       "assistant",
		Model:      model,
		Content:    content,
		StopReason: &stop,
		Usage:      in,
	}
}

// writeSSE streams msg the way the real API does.
func writeSSE(w http.ResponseWriter, msg message) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(name string, data any) {
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, raw)
		if fl != nil {
			fl.Flush()
		}
	}
	start := msg
	start.Content = []map[string]any{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": start})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range msg.Content {
		switch b["type"] {
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			raw, _ := json.Marshal(b["input"])
			for _, part := range chunks(string(raw), 40) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			text, _ := b["text"].(string)
			for _, part := range chunks(text, 40) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": *msg.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": msg.Usage.OutputTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// chunks splits s into pieces of at most n bytes without splitting UTF-8
// sequences. An empty string yields no chunks.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		if len(s) <= n {
			out = append(out, s)
			break
		}
		cut := n
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
