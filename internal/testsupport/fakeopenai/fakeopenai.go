package fakeopenai

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ShellTool is the name of the shell tool codex 0.169.0 offers the model
// (unified exec). Its arguments are {"cmd": "<shell command>"} plus optional
// workdir, login, tty, yield_time_ms, max_output_tokens, …
const ShellTool = "exec_command"

// Any, as Rule.TurnToolOutputs, matches any number of tool outputs.
const Any = -1

// Request is one HTTP request the server received, as recorded by Requests.
type Request struct {
	Seq    int         // 1-based arrival order
	Method string      // "POST"
	Path   string      // "/v1/responses"
	Header http.Header // minus Authorization, cookies and anything named like a key/token/secret

	// Parsed JSON body (nil when the body was not JSON) and the raw bytes.
	Body map[string]any
	Raw  []byte

	Model string           // body.model
	Input []map[string]any // body.input items
	Tools []string         // names (or types) of body.tools, in order

	// Size of the conversation sent: bytes of the JSON of body.input plus
	// body.instructions, and an estimate in tokens (bytes/4).
	InputBytes  int
	InputTokens int

	LastUserText    string // text of the last role=user message in input
	ToolOutputs     int    // function_call_output items in the whole input
	TurnToolOutputs int    // function_call_output items after the last user message

	Rule string // name (or index) of the Rule that answered; "" if none
}

// ItemsOfType returns the input items whose "type" is typ ("message",
// "function_call", "function_call_output", "reasoning", …).
func (r Request) ItemsOfType(typ string) []map[string]any {
	var out []map[string]any
	for _, it := range r.Input {
		if it["type"] == typ {
			out = append(out, it)
		}
	}
	return out
}

// LastToolOutput is the "output" of the last function_call_output item, or "".
func (r Request) LastToolOutput() string {
	outs := r.ItemsOfType("function_call_output")
	if len(outs) == 0 {
		return ""
	}
	s, _ := outs[len(outs)-1]["output"].(string)
	return s
}

// UserTexts returns the texts of all role=user messages, oldest first.
func (r Request) UserTexts() []string {
	var out []string
	for _, it := range r.Input {
		if it["type"] == "message" && it["role"] == "user" {
			out = append(out, messageText(it))
		}
	}
	return out
}

// Script is an ordered list of rules; the first rule that matches a request
// answers it. A request no rule matches fails the test and gets HTTP 400.
type Script []Rule

// Rule matches a request and gives the model's reply. All set conditions must hold.
type Rule struct {
	Name string
	// UserText, if not empty, must be a substring of the last user message.
	UserText string
	// TurnToolOutputs is the exact number of function_call_output items after
	// the last user message (0 = the first request of a turn); Any for any.
	TurnToolOutputs int
	// Match, if set, must return true.
	Match func(Request) bool
	// Times, if > 0, is how many requests the rule may answer.
	Times int

	Reply Reply
}

// Reply is what the fake model answers: optional text, then optional tool calls.
type Reply struct {
	Text  string
	Calls []Call
	Usage *Usage // nil: estimated from the request and the reply

	// Func, if set, computes the reply from the request (other fields ignored).
	Func func(Request) Reply

	// Error answers HTTP Status (default 400) with an OpenAI error JSON instead
	// of a stream. Failed streams response.failed with this message.
	Error  string
	Status int
	Failed string
	// ErrorType is the error's type (default invalid_request_error), and
	// ErrorFields are more of its fields: a usage limit's
	// {"type":"usage_limit_reached","resets_in_seconds":…}. Header goes
	// with the error.
	ErrorType   string
	ErrorFields map[string]any
	Header      http.Header

	Delay time.Duration // before the response starts
}

// Call is one function_call output item.
type Call struct {
	Name      string // e.g. ShellTool
	Arguments string // JSON text
	CallID    string // "" → generated
}

// Usage is what response.completed reports.
type Usage struct {
	InputTokens, CachedTokens, OutputTokens, ReasoningTokens int
}

// Say is a reply with only text.
func Say(text string) Reply { return Reply{Text: text} }

// Run is a reply that makes codex run each shell command through its
// exec_command tool (one function_call per command, in one response).
func Run(cmds ...string) Reply {
	var r Reply
	for _, c := range cmds {
		r.Calls = append(r.Calls, Shell(c))
	}
	return r
}

// Shell is a call of codex's shell tool: exec_command {"cmd": cmd}.
func Shell(cmd string) Call {
	b, _ := json.Marshal(map[string]any{"cmd": cmd})
	return Call{Name: ShellTool, Arguments: string(b)}
}

// Server is a fake OpenAI Responses API.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	script Script
	used   []int
	reqs   []Request
}

// New starts a server answering with script; it is closed by t.Cleanup.
func New(t testing.TB, script Script) *Server {
	t.Helper()
	s := &Server{t: t, script: script, used: make([]int, len(script))}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// URL is the server's root, e.g. http://127.0.0.1:PORT (codex wants URL()+"/v1").
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server (safe to call twice).
func (s *Server) Close() { s.srv.Close() }

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ResponsesRequests returns the requests to POST /v1/responses only.
func (s *Server) ResponsesRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/responses" {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			if b, err := io.ReadAll(zr); err == nil {
				raw = b
			}
		}
	}
	req := parseRequest(r, raw)

	s.mu.Lock()
	req.Seq = len(s.reqs) + 1
	var reply Reply
	matched := -1
	if r.Method == http.MethodPost && (r.URL.Path == "/v1/responses" || r.URL.Path == "/responses") {
		for i, rule := range s.script {
			if rule.Times > 0 && s.used[i] >= rule.Times {
				continue
			}
			if rule.matches(req) {
				matched = i
				s.used[i]++
				reply = rule.Reply
				req.Rule = rule.Name
				if req.Rule == "" {
					req.Rule = fmt.Sprintf("#%d", i)
				}
				break
			}
		}
	}
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	if r.Method != http.MethodPost || (r.URL.Path != "/v1/responses" && r.URL.Path != "/responses") {
		s.t.Logf("fakeopenai: unhandled %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "fakeopenai: no route "+r.Method+" "+r.URL.Path, "", nil)
		return
	}
	if matched < 0 {
		s.t.Errorf("fakeopenai: no rule matches request %d (last user text %q, %d tool outputs this turn)",
			req.Seq, req.LastUserText, req.TurnToolOutputs)
		writeError(w, http.StatusBadRequest, "fakeopenai: no rule matches", "", nil)
		return
	}
	if reply.Func != nil {
		reply = reply.Func(req)
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Error != "" {
		st := reply.Status
		if st == 0 {
			st = http.StatusBadRequest
		}
		for k, vs := range reply.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		writeError(w, st, reply.Error, reply.ErrorType, reply.ErrorFields)
		return
	}
	stream(w, req, reply)
}

func (rule Rule) matches(req Request) bool {
	if rule.UserText != "" && !strings.Contains(req.LastUserText, rule.UserText) {
		return false
	}
	if rule.TurnToolOutputs != Any && rule.TurnToolOutputs != req.TurnToolOutputs {
		return false
	}
	if rule.Match != nil && !rule.Match(req) {
		return false
	}
	return true
}

var secretHeader = []string{"authorization", "proxy-authorization", "cookie", "key", "token", "secret"}

func parseRequest(r *http.Request, raw []byte) Request {
	req := Request{Method: r.Method, Path: r.URL.Path, Raw: raw, Header: http.Header{}}
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		secret := false
		for _, s := range secretHeader {
			if strings.Contains(lk, s) {
				secret = true
			}
		}
		if !secret {
			req.Header[k] = append([]string(nil), v...)
		}
	}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		return req
	}
	req.Model, _ = req.Body["model"].(string)
	if items, ok := req.Body["input"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				req.Input = append(req.Input, m)
			}
		}
	} else if s, ok := req.Body["input"].(string); ok {
		req.Input = []map[string]any{{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": s}}}}
	}
	if tools, ok := req.Body["tools"].([]any); ok {
		for _, t := range tools {
			m, _ := t.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" {
				name, _ = m["type"].(string)
			}
			req.Tools = append(req.Tools, name)
		}
	}
	in, _ := json.Marshal(req.Body["input"])
	instr, _ := req.Body["instructions"].(string)
	req.InputBytes = len(in) + len(instr)
	req.InputTokens = (req.InputBytes + 3) / 4
	for _, it := range req.Input {
		switch {
		case it["type"] == "message" && it["role"] == "user":
			req.LastUserText = messageText(it)
			req.TurnToolOutputs = 0
		case it["type"] == "function_call_output":
			req.ToolOutputs++
			req.TurnToolOutputs++
		}
	}
	return req
}

func messageText(it map[string]any) string {
	switch c := it["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, msg string, typ string, fields map[string]any) {
	if typ == "" {
		typ = "invalid_request_error"
	}
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	for k, v := range fields {
		e[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// stream writes the Server-Sent Events of one Responses API response.
func stream(w http.ResponseWriter, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	seq := 0
	send := func(typ string, ev map[string]any) {
		ev["type"] = typ
		ev["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
	}
	respID := fmt.Sprintf("resp_%d", req.Seq)
	model := req.Model
	if model == "" {
		model = "fake"
	}
	created := time.Now().Unix()
	resp := func(status string, output []any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": created,
			"status": status, "model": model, "output": output}
	}
	send("response.created", map[string]any{"response": resp("in_progress", []any{})})
	send("response.in_progress", map[string]any{"response": resp("in_progress", []any{})})

	var output []any
	idx := 0
	if reply.Text != "" {
		id := fmt.Sprintf("msg_%d_%d", req.Seq, idx)
		send("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
			"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		part := func(text string) map[string]any {
			return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		}
		send("response.content_part.added", map[string]any{"item_id": id, "output_index": idx,
			"content_index": 0, "part": part("")})
		for _, d := range chunks(reply.Text) {
			send("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx,
				"content_index": 0, "delta": d})
		}
		send("response.output_text.done", map[string]any{"item_id": id, "output_index": idx,
			"content_index": 0, "text": reply.Text})
		send("response.content_part.done", map[string]any{"item_id": id, "output_index": idx,
			"content_index": 0, "part": part(reply.Text)})
		item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{part(reply.Text)}}
		send("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	for _, c := range reply.Calls {
		id := fmt.Sprintf("fc_%d_%d", req.Seq, idx)
		callID := c.CallID
		if callID == "" {
			callID = fmt.Sprintf("call_%d_%d", req.Seq, idx)
		}
		item := func(status, args string) map[string]any {
			return map[string]any{"id": id, "type": "function_call", "status": status,
				"call_id": callID, "name": c.Name, "arguments": args}
		}
		send("response.output_item.added", map[string]any{"output_index": idx, "item": item("in_progress", "")})
		send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx,
			"delta": c.Arguments})
		send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx,
			"arguments": c.Arguments})
		done := item("completed", c.Arguments)
		send("response.output_item.done", map[string]any{"output_index": idx, "item": done})
		output = append(output, done)
		idx++
	}
	if output == nil {
		output = []any{}
	}
	if reply.Failed != "" {
		r := resp("failed", output)
		r["error"] = map[string]any{"code": "server_error", "message": reply.Failed}
		send("response.failed", map[string]any{"response": r})
		return
	}
	u := reply.Usage
	if u == nil {
		out := len(reply.Text)
		for _, c := range reply.Calls {
			out += len(c.Name) + len(c.Arguments)
		}
		u = &Usage{InputTokens: req.InputTokens, OutputTokens: (out + 3) / 4}
	}
	r := resp("completed", output)
	r["usage"] = map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.InputTokens + u.OutputTokens,
	}
	send("response.completed", map[string]any{"response": r})
}

// chunks splits text into a few deltas (at most 4) on rune boundaries.
func chunks(text string) []string {
	rs := []rune(text)
	n := (len(rs) + 3) / 4
	if n < 8 {
		n = 8
	}
	var out []string
	for len(rs) > 0 {
		k := min(n, len(rs))
		out = append(out, string(rs[:k]))
		rs = rs[k:]
	}
	return out
}
