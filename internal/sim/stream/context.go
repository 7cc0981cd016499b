package stream

import (
	"fmt"
	"strconv"
	"strings"
)

// EnvContext sets the sim's context curve (see ContextCurve), e.g.
// "base=12000,request=3000,task=2000,window=200000". It replaces the
// "context" object of EnvFile.
const EnvContext = "HIVE_SIM_CONTEXT"

// defaultWindow is the context window the sim reports unless its curve
// names another (modelUsage[*].contextWindow).
const defaultWindow = 200000

// ContextCurve makes the context the sim reports grow the way a real
// session's does, so that hive's context watchdog has something to watch.
// The zero curve keeps the plain estimate (the characters of the
// conversation / 4, all of it reported as input_tokens, with a window of
// 200,000) that tests written before the curve rely on.
//
// With a curve, the session's context starts at Base and grows by what is
// said (the same estimate), by Request at every API request (one per
// assistant line: what a real agent reads and runs between two replies)
// and by Task at every task committed. Every assistant line's
// message.usage reports its request: cache_read_input_tokens is the
// context the previous request sent (the prompt cache), input_tokens the
// rest, so that input + cache_read + cache_creation of the latest request
// is the session's context. The result line's usage sums the turn's
// requests and its modelUsage sums the session's, as Claude Code's do.
// When the context reaches 92% of Window the sim compacts as Claude Code
// does (see compactAt).
type ContextCurve struct {
	Base    int `json:"base"`    // tokens before the first prompt: system prompt and tools
	Request int `json:"request"` // tokens each API request adds
	Task    int `json:"task"`    // tokens each committed task adds
	Window  int `json:"window"`  // the context window reported; 0: 200,000
}

// On reports whether the curve is set (any field non-zero).
func (c ContextCurve) On() bool { return c != ContextCurve{} }

// window is the context window the sim reports.
func (c ContextCurve) window() int {
	if c.Window > 0 {
		return c.Window
	}
	return defaultWindow
}

// Compaction: Claude Code 2.1.330 compacts on its own when the context
// nears the window (at 967,000 of 1,000,000; the sim uses a round 92%) and
// keeps a summary of a few thousand tokens; the sim keeps a tenth of the
// window, so that a test sees the drop without the context starting over.
const (
	compactAtPercent = 92
	compactToPercent = 10
)

// compactAt is the context at which the sim compacts.
func (c ContextCurve) compactAt() int { return c.window() * compactAtPercent / 100 }

// ParseContextCurve parses the EnvContext syntax: comma-separated KEY=N
// pairs with keys base, request, task and window; an empty spec is the
// zero curve.
func ParseContextCurve(spec string) (ContextCurve, error) {
	var c ContextCurve
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return c, fmt.Errorf("%q: want KEY=N with KEY one of base, request, task, window", item)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return c, fmt.Errorf("%q: %q is not a number", item, v)
		}
		switch strings.TrimSpace(k) {
		case "base":
			c.Base = n
		case "request":
			c.Request = n
		case "task":
			c.Task = n
		case "window":
			c.Window = n
		default:
			return c, fmt.Errorf("%q: unknown key %q (want base, request, task or window)", item, k)
		}
	}
	return c, c.Check()
}

// Check says why the curve cannot be used: negative tokens, or a base
// that every request would compact.
func (c ContextCurve) Check() error {
	switch {
	case c.Base < 0 || c.Request < 0 || c.Task < 0 || c.Window < 0:
		return fmt.Errorf("context curve %+v: negative tokens", c)
	case c.Base >= c.compactAt():
		// Every request would compact.
		return fmt.Errorf("context curve: base %d is not below %d%% of the window %d", c.Base, compactAtPercent, c.window())
	}
	return nil
}
