package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/work"
)

// Line is one stdout line of Claude Code's stream-json dialect (which the sim
// agent speaks too), reduced to what hive uses. Unknown line types and
// unknown system subtypes are kept as Type/Subtype and otherwise ignored.
type Line struct {
	Type      string      // system, assistant, user, result, ...
	Subtype   string      // init, success, error_max_turns, ...
	SessionID string      // session_id
	Texts     []string    // assistant: every text block, in order
	IsError   bool        // result: is_error
	Result    string      // result: the last text block
	Usage     agent.Usage // result: usage of the turn (or session, per CLI)
	CostUSD   float64     // result: total_cost_usd, cumulative per session
	Model     string      // result: the model that did most of the turn (modelUsage); assistant: message.model
	Tools     []Call      // assistant: the tool_use blocks, in order
	// assistant: the API message the line is part of (one line per content
	// block), the usage the API reported when the message started (its
	// input and cache tokens; output only as far as it had gone), and the
	// characters of the line's blocks, from which its output is estimated.
	MessageID    string
	MessageUsage *agent.Usage
	BlockChars   int
	Denied       []string // result: the tools of permission_denials
	// result: the context window of Model (modelUsage[Model].contextWindow).
	Window int64
	// system/compact_boundary: what triggered the compaction (auto,
	// manual) and the context's tokens before and after it.
	Trigger               string
	PreTokens, PostTokens int64
	// result: the provider's error that ended the turn, if any (reset
	// not yet filled in: turnMeter does from the session's earlier lines).
	Limit *agent.Limit
	// rate_limit_event, assistant: a rejected usage limit's reset (epoch
	// seconds) and window, when the line says.
	LimitReset  int64
	LimitWindow string
	// control_request / can_use_tool (--permission-prompt-tool stdio):
	RequestID string // request_id
	Tool      string // request.tool_name
	Input     string // request.input, the tool's input as JSON
}

// Call is one tool call an agent made: the tool and its input as JSON.
type Call struct {
	Tool  string
	Input string
}

type rawLine struct {
	Type      string      `json:"type"`
	Subtype   string      `json:"subtype"`
	SessionID string      `json:"session_id"`
	IsError   bool        `json:"is_error"`
	Result    string      `json:"result"`
	Usage     agent.Usage `json:"usage"`
	CostUSD   float64     `json:"total_cost_usd"`
	ModelUse  map[string]struct {
		OutputTokens  int64   `json:"outputTokens"`
		CostUSD       float64 `json:"costUSD"`
		ContextWindow int64   `json:"contextWindow"`
	} `json:"modelUsage"`
	Compact *struct {
		Trigger    string `json:"trigger"`
		PreTokens  int64  `json:"pre_tokens"`
		PostTokens int64  `json:"post_tokens"`
	} `json:"compact_metadata"`
	Denials []struct {
		ToolName string `json:"tool_name"`
	} `json:"permission_denials"`
	// An API error (Claude Code 2.1.330 on the result line and on the
	// synthetic assistant message that says it) and a usage limit's
	// window (rate_limit_event, and the assistant message's params).
	APIError       string         `json:"api_error"`
	APIErrorStatus int            `json:"api_error_status"`
	APIErrorType   string         `json:"api_error_type"`
	RateLimit      *rateLimitInfo `json:"rate_limit_info"`
	APIErrorParams *struct {
		RateLimit *rateLimitInfo `json:"rate_limit_info"`
	} `json:"api_error_params"`
	RequestID string `json:"request_id"`
	Request   *struct {
		Subtype  string          `json:"subtype"`
		ToolName string          `json:"tool_name"`
		Input    json.RawMessage `json:"input"`
	} `json:"request"`
	Message *struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *agent.Usage    `json:"usage"`
	} `json:"message"`
}

// rateLimitInfo is Claude Code's account of a usage limit's window.
type rateLimitInfo struct {
	Status   string `json:"status"`   // allowed, allowed_warning, rejected
	ResetsAt int64  `json:"resetsAt"` // epoch seconds; 0 when not said
	Type     string `json:"rateLimitType"`
}

type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
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
	if u, ok := r.ModelUse[l.Model]; ok {
		l.Window = u.ContextWindow
	}
	if r.Type == "system" && r.Subtype == "compact_boundary" && r.Compact != nil {
		l.Trigger, l.PreTokens, l.PostTokens = r.Compact.Trigger, r.Compact.PreTokens, r.Compact.PostTokens
	}
	if r.Type == "result" && r.IsError {
		l.Limit = claudeLimit(r, 0)
	}
	for _, info := range []*rateLimitInfo{r.RateLimit, paramsLimit(r)} {
		if info != nil && info.Status == "rejected" && info.ResetsAt > 0 {
			l.LimitReset, l.LimitWindow = info.ResetsAt, info.Type
		}
	}
	for _, d := range r.Denials {
		l.Denied = append(l.Denied, d.ToolName)
	}
	if r.Type == "control_request" && r.Request != nil {
		l.Subtype, l.RequestID, l.Tool, l.Input = r.Request.Subtype, r.RequestID, r.Request.ToolName, string(r.Request.Input)
		if l.Input == "" || l.Input == "null" {
			l.Input = "{}"
		}
	}
	if r.Type == "assistant" && r.Message != nil {
		l.MessageID, l.MessageUsage = r.Message.ID, r.Message.Usage
	}
	if r.Type == "assistant" && r.Message != nil && len(r.Message.Content) > 0 {
		var blocks []block
		if err := json.Unmarshal(r.Message.Content, &blocks); err != nil {
			// Content may also be a plain string.
			var s string
			if json.Unmarshal(r.Message.Content, &s) == nil && s != "" {
				l.Texts = []string{s}
				l.BlockChars = len(s)
			}
			return l, nil
		}
		for _, b := range blocks {
			l.BlockChars += len(b.Text) + len(b.Thinking) + len(b.Name) + len(b.Input)
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

func paramsLimit(r rawLine) *rateLimitInfo {
	if r.APIErrorParams == nil {
		return nil
	}
	return r.APIErrorParams.RateLimit
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

// lineOutputs is what a parsed line says.
func lineOutputs(l Line) []agent.Output {
	var out []agent.Output
	for _, t := range l.Texts {
		out = append(out, agent.Output{Kind: agent.OutText, Text: t})
	}
	for _, c := range l.Tools {
		out = append(out, agent.Output{Kind: agent.OutToolCall, Tool: c.Tool, Input: c.Input})
	}
	if l.Type == "control_request" && l.Subtype == "can_use_tool" && l.RequestID != "" {
		out = append(out, agent.Output{Kind: agent.OutPermission, RequestID: l.RequestID, Tool: l.Tool, Input: l.Input})
	}
	if l.Type == "result" {
		out = append(out, agent.Output{Kind: agent.OutResult, Text: l.Result, IsError: l.IsError, Usage: l.Usage, CostUSD: l.CostUSD, Model: l.Model, Denied: l.Denied, Window: l.Window, Limit: l.Limit})
	}
	if l.Type == "system" && l.Subtype == "compact_boundary" {
		out = append(out, agent.Output{Kind: agent.OutCompacted, Text: l.Trigger, PreTokens: l.PreTokens, Context: l.PostTokens})
	}
	return out
}

// turnMeter turns Claude Code's stream into spend as it happens. The
// result line says what a whole turn used, but a turn can be many API
// requests and minutes long, and an interrupted or killed turn may never
// print it. Each assistant line names its API message and carries the
// usage the API reported when that message started: its input and cache
// tokens exactly, its output hardly at all. So the first line of each
// message reports its input and cache tokens, and every line the output
// its blocks amount to (characters / 4), as OutSpend; the result then
// reports only the rest of the turn's usage, so that the turn's outputs add
// up to exactly what the result says.
//
// It also follows how full the session's context is: each API request
// carries the whole conversation, so the input and cache tokens of the
// latest request are the context's size.
type turnMeter struct {
	seen    map[string]bool // the API messages of this turn already reported
	sofar   agent.Usage     // what this turn's OutSpend outputs reported
	context int64           // the session's context, as of its latest request
	// reset and window: the usage limit this turn was told of (a
	// rate_limit_event or the error's message come before the result).
	reset  int64
	window string
}

// outputs is the Dialect.Line of one session's stream-json.
func (m *turnMeter) outputs(b []byte) ([]agent.Output, error) {
	l, err := ParseLine(b)
	if err != nil {
		return nil, err
	}
	out := lineOutputs(l)
	if l.LimitReset > 0 {
		m.reset, m.window = l.LimitReset, l.LimitWindow
	}
	switch {
	case l.Type == "assistant" && l.MessageID != "":
		var u agent.Usage
		if m.seen == nil {
			m.seen = map[string]bool{}
		}
		if !m.seen[l.MessageID] && l.MessageUsage != nil {
			m.seen[l.MessageID] = true
			u = *l.MessageUsage
			if in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens; in > 0 {
				m.context = in
			}
		}
		u.OutputTokens = max(u.OutputTokens, int64(l.BlockChars/4))
		if u != (agent.Usage{}) {
			m.sofar = plus(m.sofar, u)
			out = append([]agent.Output{{Kind: agent.OutSpend, Usage: u, Model: l.Model, Context: m.context}}, out...)
		}
	case l.Type == "result":
		if m.context == 0 {
			// No request said its size (a CLI that prints no message
			// usage): the turn's input is the best guess there is.
			m.context = l.Usage.InputTokens + l.Usage.CacheReadInputTokens + l.Usage.CacheCreationInputTokens
		}
		for i := range out {
			if out[i].Kind == agent.OutResult {
				out[i].Usage = m.rest(out[i].Usage)
				out[i].Context = m.context
				if lim := out[i].Limit; lim != nil && lim.Kind == work.LimitUsage && m.reset > 0 {
					lim.Reset, lim.Window = time.Unix(m.reset, 0).UTC(), m.window
				}
			}
		}
		m.seen, m.sofar, m.reset, m.window = nil, agent.Usage{}, 0, ""
	case l.Type == "system" && l.Subtype == "compact_boundary":
		m.context = l.PostTokens
	}
	return out, nil
}

// rest is what a result's usage adds to what the turn already reported.
// A result that accounts for every request seen corrects the output
// estimates exactly (its rest may be negative there); one that does not
// (a turn cut short may report less than it sent) adds only what it has
// more of, so that nothing seen is taken back.
func (m *turnMeter) rest(total agent.Usage) agent.Usage {
	d := agent.Usage{InputTokens: total.InputTokens - m.sofar.InputTokens, OutputTokens: total.OutputTokens - m.sofar.OutputTokens,
		CacheCreationInputTokens: total.CacheCreationInputTokens - m.sofar.CacheCreationInputTokens, CacheReadInputTokens: total.CacheReadInputTokens - m.sofar.CacheReadInputTokens}
	if d.InputTokens >= 0 && d.CacheCreationInputTokens >= 0 && d.CacheReadInputTokens >= 0 {
		return d
	}
	return agent.Usage{InputTokens: max(0, d.InputTokens), OutputTokens: max(0, d.OutputTokens),
		CacheCreationInputTokens: max(0, d.CacheCreationInputTokens), CacheReadInputTokens: max(0, d.CacheReadInputTokens)}
}

// plus adds two usages.
func plus(u, o agent.Usage) agent.Usage {
	return agent.Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens + o.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens + o.CacheReadInputTokens}
}

// StreamJSON is Claude Code's stream-json dialect, which the sim speaks too,
// for one session: it meters the session's spend request by request.
func StreamJSON() agent.Dialect {
	m := &turnMeter{}
	return agent.Dialect{Line: m.outputs, Input: "stream"}
}

// StartStreamJSON starts argv as a stream-json agent: it writes spec.Prompt as
// the first user message, keeps stdin open for later messages, and calls sink
// for every Output from its own goroutine, ending with OutExit.
func StartStreamJSON(ctx context.Context, argv []string, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	return agent.Start(ctx, argv, spec, StreamJSON(), sink)
}
