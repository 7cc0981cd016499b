package stream

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// simTools is what the init line advertises; the names are Claude Code's so
// that adapters reading the list see familiar values.
var simTools = []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep"}

// junkLines are written between real lines by the garbage fault: plain text,
// truncated JSON and invalid UTF-8, the three things a robust reader must skip.
var junkLines = []string{
	"sim: this line is not JSON at all\n",
	`{"type":"assistant","message":{"id":"msg_trunc","content":[{"type":"te` + "\n",
	"\xff\xfe\xc3\x28 invalid utf-8 \xed\xa0\x80\n",
}

// Emitter writes the stream-json output of one session. It is safe for
// concurrent use; once closed it drops everything, so that a worker still
// running after Main returned cannot write half a line.
type Emitter struct {
	mu        sync.Mutex
	w         io.Writer
	closed    bool
	garbage   bool
	junk      int
	sessionID string
	cwd       string
	seq       int

	turns     int
	turnStart time.Time
	inTurn    bool
	lastText  string
	turnOut   int // output tokens of the current turn
	turnIn    int // input tokens of the current turn: each request's context (with a curve: its uncached part), summed
	context   int // rough tokens in the conversation so far
	outTotal  int

	// With a context curve (see ContextCurve):
	curve     ContextCurve
	cached    int // the context the previous request sent: what the next one reads from the cache
	turnRead  int // cache_read_input_tokens of the current turn
	inTotal   int // input_tokens of the session
	readTotal int // cache_read_input_tokens of the session
	dropped   int // tokens compactions dropped in the session
}

// NewEmitter makes the emitter of a session whose context follows curve
// (the zero curve: the plain estimate).
func NewEmitter(w io.Writer, sessionID, cwd string, curve ContextCurve) *Emitter {
	e := &Emitter{w: w, sessionID: sessionID, cwd: cwd, curve: curve}
	if curve.On() {
		e.context = curve.Base
	}
	return e
}

// write marshals v as one line. Callers hold e.mu.
func (e *Emitter) write(v any) {
	if e.closed {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only plain maps and strings are marshalled here; this cannot happen.
		panic(fmt.Sprintf("sim: marshal output line: %v", err))
	}
	if e.garbage {
		_, _ = io.WriteString(e.w, junkLines[e.junk%len(junkLines)])
		e.junk++
	}
	_, _ = e.w.Write(append(b, '\n'))
}

func (e *Emitter) nextID(prefix string) string {
	e.seq++
	return fmt.Sprintf("%s_sim_%s_%03d", prefix, e.sessionID[:8], e.seq)
}

// StartTurn writes the system/init line Claude Code prints at the start of
// every turn, and counts the user's message into the context estimate.
func (e *Emitter) StartTurn(input string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.turns++
	e.inTurn = true
	e.turnStart = time.Now()
	e.turnOut, e.turnIn, e.turnRead = 0, 0, 0
	e.lastText = ""
	e.context += tokens(input)
	e.write(map[string]any{
		"type": "system", "subtype": "init", "session_id": e.sessionID,
		"model": "sim", "cwd": e.cwd, "tools": simTools,
		"permissionMode": "acceptEdits", "apiKeySource": "none",
	})
}

// Heard counts a user message folded into the running turn into the
// context.
func (e *Emitter) Heard(msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.context += tokens(msg)
}

// Text writes one assistant text block.
func (e *Emitter) Text(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastText = s
	e.count(s)
	e.assistant([]any{map[string]any{"type": "text", "text": s}})
}

// ToolUse writes an assistant tool_use block and returns its id, for a later
// toolResult. The sim has already done the work; the pair is for realism.
func (e *Emitter) ToolUse(name string, input map[string]any) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.nextID("toolu")
	b, _ := json.Marshal(input)
	e.count(string(b))
	e.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})
	return id
}

// ToolResult writes the user line Claude Code prints for a tool's output.
func (e *Emitter) ToolResult(id, content string, isError bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.context += tokens(content)
	e.write(map[string]any{
		"type": "user",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError,
		}}},
		"parent_tool_use_id": nil, "session_id": e.sessionID,
	})
}

// assistant writes one assistant message, as one API request's reply: its
// usage is what the API reports as the message starts (the request's input,
// the context so far; output 1), as with Claude Code. With a context curve
// the request first compacts the conversation when it is nearly full, as
// Claude Code does before a request, and adds the curve's tokens per
// request; its input is then split into what the previous request sent
// (read from the prompt cache) and the rest.
func (e *Emitter) assistant(content []any) {
	usage := map[string]any{"input_tokens": e.context, "output_tokens": 1}
	if e.curve.On() {
		if e.context >= e.curve.compactAt() {
			e.compact()
		}
		e.context += e.curve.Request
		read := min(e.cached, e.context)
		in := e.context - read
		e.cached = e.context
		e.turnIn += in
		e.turnRead += read
		e.inTotal += in
		e.readTotal += read
		usage = map[string]any{"input_tokens": in, "cache_read_input_tokens": read, "cache_creation_input_tokens": 0, "output_tokens": 1}
	} else {
		e.turnIn += e.context
	}
	e.write(map[string]any{
		"type": "assistant",
		"message": map[string]any{
			"id": e.nextID("msg"), "type": "message", "role": "assistant", "model": "sim",
			"content": content, "stop_reason": nil, "usage": usage,
		},
		"parent_tool_use_id": nil, "session_id": e.sessionID,
	})
}

// continuedText begins the user message with which Claude Code starts the
// conversation again after a compaction.
const continuedText = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation."

// compact writes the lines Claude Code 2.1.330 prints when it compacts on
// its own (see the fakeanthropic package's measured notes): the status
// lines, the compact_boundary with the context before and after, and the
// synthetic user message that carries the summary. The context drops to a
// tenth of the window, and the next request reads nothing from the cache
// (its prompt changed). Callers hold e.mu.
func (e *Emitter) compact() {
	pre, post := e.context, e.curve.window()*compactToPercent/100
	e.dropped += pre - post
	e.write(map[string]any{"type": "system", "subtype": "status", "status": "compacting", "compact_output_chars": 0,
		"session_id": e.sessionID, "uuid": NewUUID()})
	e.write(map[string]any{"type": "system", "subtype": "status", "status": nil, "compact_result": "success",
		"session_id": e.sessionID, "uuid": NewUUID()})
	e.write(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": NewUUID(),
		"compact_metadata": map[string]any{"trigger": "auto", "pre_tokens": pre, "post_tokens": post,
			"cumulative_dropped_tokens": e.dropped, "duration_ms": 0},
		"session_id": e.sessionID})
	e.write(map[string]any{
		"type": "user",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "text", "text": continuedText + "\n\nSummary:\nThe hive sim's work so far (a simulated summary).",
		}}},
		"parent_tool_use_id": nil, "session_id": e.sessionID, "isSynthetic": true,
	})
	e.context, e.cached = post, 0
}

// Grow adds n tokens to the context: what a task read and ran.
func (e *Emitter) Grow(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.context += n
}

func (e *Emitter) count(s string) {
	n := tokens(s)
	e.turnOut += n
	e.outTotal += n
	e.context += n
}

// EndTurn writes the result line: usage is the turn's, every request's
// input summed (each request carries the conversation so far) and its
// output. Without a context curve modelUsage.inputTokens approximates the
// size of the conversation; with one, modelUsage sums the session's usage
// as Claude Code's does, and contextWindow is the curve's window.
func (e *Emitter) EndTurn() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.inTurn {
		return
	}
	e.inTurn = false
	usage := map[string]any{"input_tokens": e.turnIn, "output_tokens": e.turnOut}
	model := map[string]any{"inputTokens": e.context, "outputTokens": e.outTotal, "contextWindow": defaultWindow, "costUSD": 0}
	if e.curve.On() {
		usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"] = e.turnRead, 0
		model = map[string]any{"inputTokens": e.inTotal, "cacheReadInputTokens": e.readTotal, "cacheCreationInputTokens": 0,
			"outputTokens": e.outTotal, "contextWindow": e.curve.window(), "costUSD": 0}
	}
	e.write(map[string]any{
		"type": "result", "subtype": "success", "is_error": false,
		"duration_ms": time.Since(e.turnStart).Milliseconds(), "duration_api_ms": 0,
		"num_turns": e.turns, "result": e.lastText, "session_id": e.sessionID,
		"total_cost_usd":     0,
		"usage":              usage,
		"modelUsage":         map[string]any{"sim": model},
		"permission_denials": []any{},
	})
}

// LimitReached ends the turn as Claude Code 2.1.330 ends one that met the
// account's usage limit (logged in with a subscription): a
// rate_limit_event, the synthetic assistant message, and a result that is
// an error naming usage_limit_reached; the reset in epoch seconds.
func (e *Emitter) LimitReached(reset time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.inTurn {
		return
	}
	e.inTurn = false
	info := map[string]any{"status": "rejected", "resetsAt": reset.Unix(), "rateLimitType": "five_hour", "isUsingOverage": false}
	text := "You've hit your 5-hour limit · resets " + reset.UTC().Format("3:04pm") + " (UTC)"
	e.write(map[string]any{"type": "rate_limit_event", "rate_limit_info": info, "uuid": NewUUID(), "session_id": e.sessionID})
	e.write(map[string]any{"type": "assistant", "api_error": "usage_limit_reached", "api_error_params": map[string]any{"rate_limit_info": info},
		"api_error_status": 429, "api_error_type": "rate_limit_error", "error": "rate_limit", "is_api_error_message": true,
		"message":    map[string]any{"id": NewUUID(), "model": "<synthetic>", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}},
		"session_id": e.sessionID})
	e.write(map[string]any{"type": "result", "subtype": "success", "is_error": true, "api_error": "usage_limit_reached",
		"api_error_status": 429, "api_error_type": "rate_limit_error", "result": text, "terminal_reason": "api_error",
		"num_turns": e.turns, "session_id": e.sessionID, "total_cost_usd": 0, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}})
}

// SetGarbage turns the garbage fault's junk lines between real ones on or
// off.
func (e *Emitter) SetGarbage(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.garbage = on
}

// Close makes the emitter drop everything written after it.
func (e *Emitter) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
}

// tokens is the usual four-characters-per-token estimate.
func tokens(s string) int { return (len(s) + 3) / 4 }

// NewUUID returns a random version-4 UUID, the form Claude Code uses for
// session ids.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
