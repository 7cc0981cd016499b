package sim

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

// emitter writes the stream-json output of one session. It is safe for
// concurrent use; once closed it drops everything, so that a worker still
// running after Main returned cannot write half a line.
type emitter struct {
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
	turnIn    int // input tokens of the current turn: each request's context, summed
	context   int // rough tokens in the conversation so far
	outTotal  int
}

func newEmitter(w io.Writer, sessionID, cwd string) *emitter {
	return &emitter{w: w, sessionID: sessionID, cwd: cwd}
}

// write marshals v as one line. Callers hold e.mu.
func (e *emitter) write(v any) {
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

func (e *emitter) nextID(prefix string) string {
	e.seq++
	return fmt.Sprintf("%s_sim_%s_%03d", prefix, e.sessionID[:8], e.seq)
}

// startTurn writes the system/init line Claude Code prints at the start of
// every turn, and counts the user's message into the context estimate.
func (e *emitter) startTurn(input string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.turns++
	e.inTurn = true
	e.turnStart = time.Now()
	e.turnOut, e.turnIn = 0, 0
	e.lastText = ""
	e.context += tokens(input)
	e.write(map[string]any{
		"type": "system", "subtype": "init", "session_id": e.sessionID,
		"model": "sim", "cwd": e.cwd, "tools": simTools,
		"permissionMode": "acceptEdits", "apiKeySource": "none",
	})
}

// text writes one assistant text block.
func (e *emitter) text(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastText = s
	e.count(s)
	e.assistant([]any{map[string]any{"type": "text", "text": s}})
}

// toolUse writes an assistant tool_use block and returns its id, for a later
// toolResult. The sim has already done the work; the pair is for realism.
func (e *emitter) toolUse(name string, input map[string]any) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.nextID("toolu")
	b, _ := json.Marshal(input)
	e.count(string(b))
	e.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})
	return id
}

// toolResult writes the user line Claude Code prints for a tool's output.
func (e *emitter) toolResult(id, content string, isError bool) {
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
// the context so far; output 1), as with Claude Code.
func (e *emitter) assistant(content []any) {
	e.turnIn += e.context
	e.write(map[string]any{
		"type": "assistant",
		"message": map[string]any{
			"id": e.nextID("msg"), "type": "message", "role": "assistant", "model": "sim",
			"content": content, "stop_reason": nil,
			"usage": map[string]any{"input_tokens": e.context, "output_tokens": 1},
		},
		"parent_tool_use_id": nil, "session_id": e.sessionID,
	})
}

func (e *emitter) count(s string) {
	n := tokens(s)
	e.turnOut += n
	e.outTotal += n
	e.context += n
}

// endTurn writes the result line: usage is the turn's, every request's
// input summed (each request carries the conversation so far) and its
// output; modelUsage.inputTokens approximates the size of the conversation
// (what a context watchdog compares with contextWindow).
func (e *emitter) endTurn() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.inTurn {
		return
	}
	e.inTurn = false
	e.write(map[string]any{
		"type": "result", "subtype": "success", "is_error": false,
		"duration_ms": time.Since(e.turnStart).Milliseconds(), "duration_api_ms": 0,
		"num_turns": e.turns, "result": e.lastText, "session_id": e.sessionID,
		"total_cost_usd": 0,
		"usage":          map[string]any{"input_tokens": e.turnIn, "output_tokens": e.turnOut},
		"modelUsage": map[string]any{"sim": map[string]any{
			"inputTokens": e.context, "outputTokens": e.outTotal, "contextWindow": 200000, "costUSD": 0,
		}},
		"permission_denials": []any{},
	})
}

func (e *emitter) setGarbage(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.garbage = on
}

func (e *emitter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
}

// tokens is the usual four-characters-per-token estimate.
func tokens(s string) int { return (len(s) + 3) / 4 }

// newUUID returns a random version-4 UUID, the form Claude Code uses for
// session ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
