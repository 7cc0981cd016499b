package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Line is one stdout line of Claude Code's stream-json dialect (which the sim
// agent speaks too), reduced to what hive uses. Unknown line types and
// unknown system subtypes are kept as Type/Subtype and otherwise ignored.
type Line struct {
	Type      string   // system, assistant, user, result, ...
	Subtype   string   // init, success, error_max_turns, ...
	SessionID string   // session_id
	Texts     []string // assistant: every text block, in order
	IsError   bool     // result: is_error
	Result    string   // result: the last text block
	Usage     Usage    // result: usage of the turn (or session, per CLI)
	CostUSD   float64  // result: total_cost_usd, cumulative per session
	Model     string   // result: the model that did most of the turn (modelUsage); assistant: message.model
	Tools     []Call   // assistant: the tool_use blocks, in order
	Denied    []string // result: the tools of permission_denials
	// control_request / can_use_tool (--permission-prompt-tool stdio):
	RequestID string // request_id
	Tool      string // request.tool_name
	Input     string // request.input, the tool's input as JSON
}

// Usage is a token count. The Anthropic API counts input, cache writes
// and cache reads apart (disjoint); the other dialects are converted to
// that shape.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Call is one tool call an agent made: the tool and its input as JSON.
type Call struct {
	Tool  string
	Input string
}

type rawLine struct {
	Type      string  `json:"type"`
	Subtype   string  `json:"subtype"`
	SessionID string  `json:"session_id"`
	IsError   bool    `json:"is_error"`
	Result    string  `json:"result"`
	Usage     Usage   `json:"usage"`
	CostUSD   float64 `json:"total_cost_usd"`
	ModelUse  map[string]struct {
		OutputTokens int64   `json:"outputTokens"`
		CostUSD      float64 `json:"costUSD"`
	} `json:"modelUsage"`
	Denials []struct {
		ToolName string `json:"tool_name"`
	} `json:"permission_denials"`
	RequestID string `json:"request_id"`
	Request   *struct {
		Subtype  string          `json:"subtype"`
		ToolName string          `json:"tool_name"`
		Input    json.RawMessage `json:"input"`
	} `json:"request"`
	Message *struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ParseLine parses one stream-json line. An error means the line is not a
// JSON object; the caller logs it and goes on.
func ParseLine(b []byte) (Line, error) {
	var r rawLine
	if err := json.Unmarshal(b, &r); err != nil {
		return Line{}, fmt.Errorf("not a stream-json line: %w", err)
	}
	if r.Type == "" {
		return Line{}, fmt.Errorf("not a stream-json line: no type")
	}
	l := Line{Type: r.Type, Subtype: r.Subtype, SessionID: r.SessionID, IsError: r.IsError, Result: r.Result, Usage: r.Usage, CostUSD: r.CostUSD}
	l.Model = mainModel(r)
	for _, d := range r.Denials {
		l.Denied = append(l.Denied, d.ToolName)
	}
	if r.Type == "control_request" && r.Request != nil {
		l.Subtype, l.RequestID, l.Tool, l.Input = r.Request.Subtype, r.RequestID, r.Request.ToolName, string(r.Request.Input)
		if l.Input == "" || l.Input == "null" {
			l.Input = "{}"
		}
	}
	if r.Type == "assistant" && r.Message != nil && len(r.Message.Content) > 0 {
		var blocks []block
		if err := json.Unmarshal(r.Message.Content, &blocks); err != nil {
			// Content may also be a plain string.
			var s string
			if json.Unmarshal(r.Message.Content, &s) == nil && s != "" {
				l.Texts = []string{s}
			}
			return l, nil
		}
		for _, b := range blocks {
			switch {
			case b.Type == "text" && b.Text != "":
				l.Texts = append(l.Texts, b.Text)
			case b.Type == "tool_use" && b.Name != "":
				in := string(b.Input)
				if in == "" || in == "null" {
					in = "{}"
				}
				l.Tools = append(l.Tools, Call{Tool: b.Name, Input: in})
			}
		}
	}
	return l, nil
}

// mainModel is the model a line names: an assistant message's model, or
// of a result's modelUsage the model that produced the most output (a
// turn may use a small model on the side), ties broken by name.
func mainModel(r rawLine) string {
	if r.Message != nil && r.Message.Model != "" {
		return r.Message.Model
	}
	best, out := "", int64(-1)
	for name, u := range r.ModelUse {
		if u.OutputTokens > out || (u.OutputTokens == out && name < best) {
			best, out = name, u.OutputTokens
		}
	}
	return best
}

// claudeOutputs is the Dialect.Line of stream-json.
func claudeOutputs(b []byte) ([]Output, error) {
	l, err := ParseLine(b)
	if err != nil {
		return nil, err
	}
	var out []Output
	for _, t := range l.Texts {
		out = append(out, Output{Kind: OutText, Text: t})
	}
	for _, c := range l.Tools {
		out = append(out, Output{Kind: OutToolCall, Tool: c.Tool, Input: c.Input})
	}
	if l.Type == "control_request" && l.Subtype == "can_use_tool" && l.RequestID != "" {
		out = append(out, Output{Kind: OutPermission, RequestID: l.RequestID, Tool: l.Tool, Input: l.Input})
	}
	if l.Type == "result" {
		out = append(out, Output{Kind: OutResult, Text: l.Result, IsError: l.IsError, Usage: l.Usage, CostUSD: l.CostUSD, Model: l.Model, Denied: l.Denied})
	}
	return out, nil
}

// UserMessage renders a stream-json input line carrying text as the user's turn.
func UserMessage(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":    "user",
		"message": map[string]any{"role": "user", "content": text},
	})
	return append(b, '\n')
}

// PermissionResponse renders the control_response that answers a
// can_use_tool request: allow (running the tool with input, the request's
// own input JSON) or deny (message is what the model is told).
func PermissionResponse(requestID string, allow bool, input, message string) []byte {
	var resp map[string]any
	if allow {
		in := json.RawMessage(input)
		if !json.Valid(in) {
			in = json.RawMessage("{}")
		}
		resp = map[string]any{"behavior": "allow", "updatedInput": in}
	} else {
		if message == "" {
			message = "permission denied"
		}
		resp = map[string]any{"behavior": "deny", "message": message}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // ends the line with '\n'
	enc.SetEscapeHTML(false)   // the input goes back as the CLI printed it
	enc.Encode(map[string]any{
		"type":     "control_response",
		"response": map[string]any{"subtype": "success", "request_id": requestID, "response": resp},
	})
	return b.Bytes()
}
