package fakeanthropic

import (
	"crypto/sha256"
	"encoding/json"
)

// Usage is what the server billed for one request, as its reply reported
// it: input tokens after the last cache breakpoint, tokens written to the
// prompt cache, tokens read from it, and output tokens.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.InputTokens + o.InputTokens, u.CacheCreationInputTokens + o.CacheCreationInputTokens,
		u.CacheReadInputTokens + o.CacheReadInputTokens, u.OutputTokens + o.OutputTokens}
}

// AllInput is every input token of the request, cached or not.
func (u Usage) AllInput() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// CacheMinTokens is the shortest prefix the simulated cache keeps: the
// API's minimum for the Opus and Sonnet models. A shorter prefix is billed
// as plain input.
const CacheMinTokens = 1024

// cacheLookback is how many blocks before a breakpoint the API looks for
// an earlier cached prefix: a conversation that grew by a few messages
// since its last request still reads what that request cached.
const cacheLookback = 20

// promptCache simulates the Messages API's prompt caching. The prompt is
// read as a sequence of blocks in the API's order (tools, system blocks,
// then every message's content blocks); a block carrying cache_control is
// a breakpoint. A request reads the longest prefix that an earlier request
// wrote and that ends within cacheLookback blocks before one of its
// breakpoints, writes the prefix up to each of its breakpoints, and pays
// plain input only for what follows its last breakpoint. Prefixes are
// identified by a hash chained over the blocks' exact JSON, so one changed
// byte anywhere before a breakpoint misses from there on, as with the real
// cache. Entries never expire (tests are shorter than the API's five
// minutes). Tokens are the package's estimate (characters / 4); tool
// definitions count for identity but not for tokens, as in EstimateTokens.
type promptCache struct {
	entries map[[32]byte]bool
}

// prefixBlock is one block of a prompt in cache order.
type prefixBlock struct {
	hash       [32]byte // of this block and every block before it
	chars      int      // characters counted by the token estimate, up to and including this block
	breakpoint bool
}

// bill works out the usage of a request whose estimate is total input
// tokens, and records what it writes to the cache.
func (c *promptCache) bill(body []byte, total int) Usage {
	blocks := promptBlocks(body)
	last := -1
	for i, b := range blocks {
		if b.breakpoint {
			last = i
		}
	}
	if last < 0 {
		return Usage{InputTokens: total}
	}
	if c.entries == nil {
		c.entries = map[[32]byte]bool{}
	}
	read := -1 // the block the longest cached prefix ends with
	for i, b := range blocks {
		if !b.breakpoint {
			continue
		}
		for j := i; j >= 0 && j > i-cacheLookback && j > read; j-- {
			if c.entries[blocks[j].hash] {
				read = j
				break
			}
		}
	}
	for _, b := range blocks {
		if b.breakpoint && b.chars/4 >= CacheMinTokens {
			c.entries[b.hash] = true
		}
	}
	var u Usage
	if read >= 0 {
		u.CacheReadInputTokens = blocks[read].chars / 4
	}
	if written := blocks[last].chars / 4; written >= CacheMinTokens && written > u.CacheReadInputTokens {
		u.CacheCreationInputTokens = written - u.CacheReadInputTokens
	}
	u.InputTokens = max(0, total-u.CacheReadInputTokens-u.CacheCreationInputTokens)
	return u
}

// promptBlocks lists the blocks of a Messages request body in cache order.
// A body that does not parse has none (and is billed as plain input).
func promptBlocks(body []byte) []prefixBlock {
	var raw struct {
		Model    string            `json:"model"`
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return nil
	}
	var out []prefixBlock
	h := sha256.Sum256([]byte(raw.Model)) // each model has its own cache
	chars := 0
	// add appends a block; role names a message's author ("" for tools and
	// the system), which is part of the prefix's identity.
	add := func(role string, block json.RawMessage, counted int) {
		// The marker is not content: the prefix a request marked is read
		// by the next one, which marks a later block instead.
		var fields map[string]any
		marked := false
		if json.Unmarshal(block, &fields) == nil {
			marked = fields["cache_control"] != nil
			delete(fields, "cache_control")
			block, _ = json.Marshal(fields) // sorted keys: one spelling per content
		}
		h = sha256.Sum256(append(append(h[:], role+":"...), block...))
		chars += counted
		out = append(out, prefixBlock{hash: h, chars: chars, breakpoint: marked})
	}
	for _, t := range raw.Tools {
		add("", t, 0)
	}
	for _, b := range contentBlocks(raw.System) {
		add("", b, estimatedChars(b))
	}
	for _, m := range raw.Messages {
		for _, b := range contentBlocks(m.Content) {
			add(m.Role, b, estimatedChars(b))
		}
	}
	return out
}

// contentBlocks splits a system prompt or message content into its blocks:
// a plain string is one text block, the same content as the API sees it
// (Claude Code sends a message as blocks with a breakpoint, then as a
// string once the breakpoint has moved on).
func contentBlocks(raw json.RawMessage) []json.RawMessage {
	var bs []json.RawMessage
	if json.Unmarshal(raw, &bs) == nil {
		return bs
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
	return []json.RawMessage{b}
}

// estimatedChars is what EstimateTokens counts of one block.
func estimatedChars(raw json.RawMessage) int {
	bs := parseBlocks(json.RawMessage("[" + string(raw) + "]"))
	n := 0
	for _, b := range bs {
		n += len(b.Text) + len(b.Name)
		if b.Input != nil {
			in, _ := json.Marshal(b.Input)
			n += len(in)
		}
	}
	return n
}
