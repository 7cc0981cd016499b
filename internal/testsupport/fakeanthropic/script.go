package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Conversation is the parsed body of a POST /v1/messages request.
type Conversation struct {
	Model     string
	Stream    bool
	MaxTokens int
	// System is the system prompt flattened to text (text blocks joined by "\n").
	System   string
	Messages []Message
	// Tools lists the names of the tools offered to the model.
	Tools []string
}

// Message is one message of a conversation.
type Message struct {
	Role    string
	Content []ContentBlock
}

// ContentBlock is one block of a message. Only the fields relevant to the
// block's Type are set.
type ContentBlock struct {
	Type string // "text", "tool_use", "tool_result", "image", "thinking", ...
	Text string // text; for tool_result the result flattened to text

	ID        string         // tool_use
	Name      string         // tool_use
	Input     map[string]any // tool_use
	ToolUseID string         // tool_result
	IsError   bool           // tool_result
}

// Text returns the text of the message's text blocks joined by "\n"
// (tool results excluded).
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// AssistantTurns counts the assistant messages in the conversation so far.
func (c *Conversation) AssistantTurns() int {
	n := 0
	for _, m := range c.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// LastUserText is the text (text blocks only, tool results excluded) of
// the last user message that has any text. Claude Code adds
// <system-reminder> text blocks to user messages; they are included.
func (c *Conversation) LastUserText() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role != "user" {
			continue
		}
		if t := m.Text(); t != "" {
			return t
		}
	}
	return ""
}

// LastToolResults returns the tool_result blocks of the final message
// when it is a user message, else nil.
func (c *Conversation) LastToolResults() []ContentBlock {
	if len(c.Messages) == 0 {
		return nil
	}
	m := c.Messages[len(c.Messages)-1]
	if m.Role != "user" {
		return nil
	}
	var out []ContentBlock
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// UserPrompts counts the user messages that carry text and no tool results:
// the prompts typed by the user (1 during the first turn of a session,
// 2 during the second, ...).
func (c *Conversation) UserPrompts() int {
	n := 0
	for _, m := range c.Messages {
		if m.isPrompt() {
			n++
		}
	}
	return n
}

// EstimateTokens estimates the input tokens: characters of system prompt
// plus all message text, tool inputs and tool results, divided by 4.
func (c *Conversation) EstimateTokens() int {
	n := len(c.System)
	for _, m := range c.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Name)
			if b.Input != nil {
				raw, _ := json.Marshal(b.Input)
				n += len(raw)
			}
		}
	}
	return n/4 + 1
}

func parseConversation(body []byte) (*Conversation, error) {
	var raw struct {
		Model     string          `json:"model"`
		Stream    bool            `json:"stream"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	c := &Conversation{Model: raw.Model, Stream: raw.Stream, MaxTokens: raw.MaxTokens, System: flatten(raw.System)}
	for _, t := range raw.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	for _, m := range raw.Messages {
		c.Messages = append(c.Messages, Message{Role: m.Role, Content: parseBlocks(m.Content)})
	}
	return c, nil
}

type rawBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

func parseBlocks(raw json.RawMessage) []ContentBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []ContentBlock{{Type: "text", Text: s}}
	}
	var bs []rawBlock
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	out := make([]ContentBlock, 0, len(bs))
	for _, b := range bs {
		cb := ContentBlock{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, IsError: b.IsError}
		if b.Type == "thinking" {
			cb.Text = b.Thinking
		}
		if b.Type == "tool_result" {
			cb.Text = flatten(b.Content)
		}
		out = append(out, cb)
	}
	return out
}

// flatten turns a string or an array of text blocks into text.
func flatten(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []rawBlock
	if json.Unmarshal(raw, &bs) != nil {
		return ""
	}
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Block is one content block of a scripted reply.
type Block struct {
	Type  string // "text" (default) or "tool_use"
	Text  string
	ID    string // tool_use id; generated when empty
	Name  string // tool name
	Input map[string]any
}

// Reply is a scripted answer.
type Reply struct {
	Blocks []Block
	// StopReason defaults to "tool_use" when a tool_use block is present,
	// else "end_turn".
	StopReason string
	// Status, when non-zero, makes the server answer with this HTTP status
	// and an Anthropic error body instead of a message.
	Status       int
	ErrorType    string // e.g. "overloaded_error"; default "api_error"
	ErrorMessage string
	// Header is sent with the reply (an error's retry-after, or the
	// anthropic-ratelimit-unified-* headers of a subscription's usage
	// limit).
	Header http.Header
	// Delay is slept before the reply is sent.
	Delay time.Duration
	// OutputTokens, when positive, is the output the reply reports (and
	// bills) instead of the estimate from its blocks: a costly turn.
	OutputTokens int
}

// Text is a reply with one text block.
func Text(s string) Reply { return Reply{Blocks: []Block{{Type: "text", Text: s}}} }

// ToolUse is a tool_use block.
func ToolUse(name string, input map[string]any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// TextBlock is a text block.
func TextBlock(s string) Block { return Block{Type: "text", Text: s} }

// Blocks is a reply made of the given blocks.
func Blocks(bs ...Block) Reply { return Reply{Blocks: bs} }

// Write makes Claude Code call its Write tool.
func Write(path, content string) Reply {
	return Blocks(ToolUse("Write", map[string]any{"file_path": path, "content": content}))
}

// Bash makes Claude Code call its Bash tool.
func Bash(command string) Reply {
	return Blocks(ToolUse("Bash", map[string]any{"command": command, "description": "run " + truncate(command, 40)}))
}

// Rule answers a main-loop request. Rules are tried in order; the first
// rule whose Match returns true (nil Match matches everything) and whose
// Times is not exhausted answers.
type Rule struct {
	Name  string
	Match func(*Conversation) bool
	Reply func(*Conversation) Reply
	// Times limits how often the rule may fire (0 = unlimited).
	Times int
}

// Script decides the replies of a Server.
type Script struct {
	Rules []Rule
	// IsSide classifies a request as a side request (title generation,
	// quota probe, ...) that must not consume rules. Default DefaultIsSide.
	IsSide func(*Conversation) bool
	// Side answers side requests. Default DefaultSide.
	Side func(*Conversation) Reply
	// Compact answers Claude Code's compaction requests (see
	// IsCompaction), which never consume Rules. Default DefaultCompact.
	Compact func(*Conversation) Reply
	// AllowUnmatched turns "no rule matched" from a test error into a
	// plain text reply.
	AllowUnmatched bool
	// NoPromptCache bills every input token as plain input, as an API
	// without prompt caching would.
	NoPromptCache bool
	// ContextGrowth inflates the usage each reply reports by ContextGrowth
	// tokens per assistant message in the request's conversation, read
	// from the prompt cache: a session's reported context then grows by
	// that much per request, as a long session's would, without the
	// requests being that large. It is stateless (a retried request gets
	// the same usage) and follows the conversation, so a conversation
	// Claude Code compacted starts small again. 0 reports the estimate only.
	ContextGrowth int
}

// DefaultIsSide: Claude Code's main loop always offers tools; its side
// requests (title generation, quota probe) offer none.
func DefaultIsSide(c *Conversation) bool { return len(c.Tools) == 0 }

// DefaultSide answers every side request with a short JSON-ish title text.
func DefaultSide(c *Conversation) Reply {
	return Text(`{"title": "Fake session"}`)
}

// CompactionMarker ends the instructions of the request Claude Code
// 2.1.330 sends to have the conversation summarised when its context is
// nearly full (its retry appends a paragraph after it).
const CompactionMarker = "Respond with plain text only — an <analysis> block followed by a <summary> block"

// IsCompaction reports whether the request is Claude Code's compaction
// request: its last user message carries CompactionMarker.
func IsCompaction(c *Conversation) bool {
	return strings.Contains(c.LastUserText(), CompactionMarker)
}

// DefaultCompact answers a compaction request the way the CLI asks: an
// <analysis> block, then a <summary> block (the CLI keeps the summary's
// text and starts the conversation again from it). The summary quotes the
// prompts the user typed, less Claude Code's <system-reminder> blocks, so
// that rules matching on a prompt's text still match after a compaction.
func DefaultCompact(c *Conversation) Reply {
	var prompts []string
	for _, m := range c.Messages[:max(0, len(c.Messages)-1)] { // the last is the request for the summary
		if m.Role != "user" || hasToolResult(m) {
			continue
		}
		if t := strings.TrimSpace(systemReminder.ReplaceAllString(m.Text(), "")); t != "" {
			prompts = append(prompts, "- "+t)
		}
	}
	return Text(fmt.Sprintf("<analysis>\nfakeanthropic: a scripted summary of %d messages.\n</analysis>\n<summary>\n1. Primary Request and Intent:\n%s\n</summary>",
		len(c.Messages)-1, strings.Join(prompts, "\n")))
}

var systemReminder = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)

func hasToolResult(m Message) bool {
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// Matchers and reply constructors for building Rules.

// LastUserContains matches when the last user text contains s.
func LastUserContains(s string) func(*Conversation) bool {
	return func(c *Conversation) bool { return strings.Contains(c.LastUserText(), s) }
}

// Static returns a Reply func that always gives r.
func Static(r Reply) func(*Conversation) Reply {
	return func(*Conversation) Reply { return r }
}

// Steps builds a script for one user prompt: the i-th reply answers the
// request that carries i assistant messages after the last user prompt
// containing trigger. Use it to chain tool calls: Write, then Bash, then
// the final text.
func Steps(name, trigger string, replies ...Reply) []Rule {
	var rules []Rule
	for i, r := range replies {
		i, r := i, r
		rules = append(rules, Rule{
			Name: name + "/" + itoa(i),
			Match: func(c *Conversation) bool {
				return assistantSincePrompt(c, trigger) == i
			},
			Reply: Static(r),
		})
	}
	return rules
}

// assistantSincePrompt counts assistant messages after the last user
// prompt (text message without tool results) containing trigger; -1 if
// the last prompt does not contain it.
func assistantSincePrompt(c *Conversation, trigger string) int {
	prompt, n := c.LastPrompt()
	if prompt == "" || !strings.Contains(prompt, trigger) {
		return -1
	}
	return n
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

var cwdLine = regexp.MustCompile(`Primary working directory: (\S+)`)

// Cwd is the working directory Claude Code reports to the model in its
// environment message ("Primary working directory: …"), or "" if none was
// seen: a scripted model writes its files there, as a real one would.
func (c *Conversation) Cwd() string {
	if m := cwdLine.FindStringSubmatch(c.System); m != nil {
		return m[1]
	}
	for _, msg := range c.Messages {
		for _, b := range msg.Content {
			if m := cwdLine.FindStringSubmatch(b.Text); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// LastPrompt returns the text of the conversation's last user prompt (a
// text message with no tool results) and how many assistant messages
// follow it: where a scripted agent is in its turn.
func (c *Conversation) LastPrompt() (string, int) {
	last := -1
	for i, m := range c.Messages {
		if m.isPrompt() {
			last = i
		}
	}
	if last < 0 {
		return "", 0
	}
	n := 0
	for _, m := range c.Messages[last+1:] {
		if m.Role == "assistant" {
			n++
		}
	}
	return c.Messages[last].Text(), n
}

// isPrompt tells a prompt the user typed: a user message with text and
// no tool results.
func (m Message) isPrompt() bool {
	if m.Role != "user" || m.Text() == "" {
		return false
	}
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			return false
		}
	}
	return true
}
