package pricing

import "strings"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

// Usage is the tokens of one turn. Input excludes the cached parts: the
// Anthropic API reports input_tokens, cache_creation_input_tokens and
// cache_read_input_tokens as disjoint counts, and the OpenAI adapters
// subtract cached_input_tokens before filling it in.
type Usage struct {
	Input      int64
	Output     int64
	CacheWrite int64
	CacheRead  int64
}

// Total is every token the turn was billed for.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheWrite + u.CacheRead }

// Cost is what usage costs at price p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheWrite)*p.CacheWrite + float64(u.CacheRead)*p.CacheRead) / 1e6
}

// Table holds prices by model name. Names are matched case-insensitively:
// an exact entry first, then the longest entry that is a prefix of the
// model ("claude-sonnet-4-5-20250929" matches "claude-sonnet-4-5"), then
// the family a Claude model names ("opus", "sonnet", "haiku").
type Table map[string]Price

// Defaults are the list prices hive knows (USD per million tokens; cache
// writes at the 5-minute rate). A project overrides or adds models in
// .hive/config.json "pricing".
func Defaults() Table {
	opus := Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5}
	oldOpus := Price{Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.5}
	sonnet := Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3}
	haiku := Price{Input: 1, Output: 5, CacheWrite: 1.25, CacheRead: 0.1}
	gpt5 := Price{Input: 1.25, Output: 10, CacheRead: 0.125}
	return Table{
		// The generation Claude Code 2.1.330 resolves opus, sonnet and
		// haiku to, at the prices its own total_cost_usd uses (measured:
		// each model billed a million tokens of each kind by a fake API).
		"claude-opus-5-5":   {Input: 4, Output: 20, CacheWrite: 5, CacheRead: 0.2},
		"claude-opus-5":     opus,
		"claude-sonnet-5-5": {Input: 2, Output: 10, CacheWrite: 2.5, CacheRead: 0.1},
		"claude-sonnet-5":   {Input: 2, Output: 10, CacheWrite: 2.5, CacheRead: 0.2},
		"claude-haiku-5-5":  {Input: 0.1, Output: 0.5, CacheWrite: 0.125, CacheRead: 0.01},
		// A family name (and a model hive does not know) prices at the
		// family's dearest current rate: an estimate errs on the safe side.
		"opus":            opus,
		"claude-opus-4-0": oldOpus, "claude-opus-4-1": oldOpus, "claude-opus-4-2": oldOpus,
		"claude-3-opus": oldOpus,
		"sonnet":        sonnet, "claude-sonnet": sonnet, "claude-3-5-sonnet": sonnet, "claude-3-7-sonnet": sonnet,
		"haiku": haiku, "claude-haiku": haiku, "claude-3-5-haiku": Price{Input: 0.8, Output: 4, CacheWrite: 1, CacheRead: 0.08},
		"gpt-5": gpt5, "gpt-5-codex": gpt5, "gpt-5.1": gpt5, "gpt-5.1-codex": gpt5,
		"gpt-5-mini": {Input: 0.25, Output: 2, CacheRead: 0.025},
		"gpt-5-nano": {Input: 0.05, Output: 0.4, CacheRead: 0.005},
		"o3":         {Input: 2, Output: 8, CacheRead: 0.5},
		"o4-mini":    {Input: 1.1, Output: 4.4, CacheRead: 0.275},
		"gpt-4.1":    {Input: 2, Output: 8, CacheRead: 0.5},
		// The sim agent plays every role for free.
		"sim": {},
	}
}

// With returns a copy of t with over's entries added or replaced. An
// override covers every model it names: "opus" reprices each Opus model t
// lists, "claude-opus-4" each claude-opus-4-…, so that a project's price
// is never shadowed by a more specific built-in one.
func (t Table) With(over Table) Table {
	out := make(Table, len(t)+len(over))
	lower := make(Table, len(over))
	for k, v := range over {
		lower[strings.ToLower(k)] = v
	}
	for k, v := range t {
		if _, covered := lower.Lookup(k); !covered {
			out[strings.ToLower(k)] = v
		}
	}
	for k, v := range lower {
		out[k] = v
	}
	return out
}

// Lookup finds the price of model. ok is false for a model the table does
// not know (its spend is then counted in tokens only, and `hive costs`
// says so).
func (t Table) Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if m == "" {
		return Price{}, false
	}
	if p, ok := t[m]; ok {
		return p, true
	}
	best := ""
	for k := range t {
		if len(k) > len(best) && strings.HasPrefix(m, k) && boundary(m, len(k)) {
			best = k
		}
	}
	if best != "" {
		return t[best], true
	}
	if f := Family(m); f != "" {
		p, ok := t[f]
		return p, ok
	}
	return Price{}, false
}

// boundary reports whether a prefix of length n ends at a name boundary of
// m, so that "gpt-5" does not price "gpt-50".
func boundary(m string, n int) bool {
	return n == len(m) || strings.ContainsRune("-_.@:[", rune(m[n]))
}

// Family is the Claude model family a name belongs to ("opus", "sonnet",
// "haiku"), or "".
func Family(model string) string {
	m := strings.ToLower(model)
	for _, f := range []string{"opus", "sonnet", "haiku"} {
		if strings.Contains(m, f) {
			return f
		}
	}
	return ""
}

// Cost prices usage for model: ok is false when the model is unknown.
func (t Table) Cost(model string, u Usage) (usd float64, ok bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Ladders are the models each CLI steps down through when a budget runs
// short, most capable first. Their names are what the CLI's --model takes.
var Ladders = map[string][]string{
	"claude": {"opus", "sonnet", "haiku"},
	"codex":  {"gpt-5", "gpt-5-mini", "gpt-5-nano"},
}

// Ladder is the ladder a role walks down from its model: the configured
// ladder when there is one, else the CLI's, starting at the rung model is
// on ("" is the CLI's own default: the top rung). A model that is on no
// rung starts a ladder of its own followed by the cheaper rungs of the
// CLI's ladder below the family it belongs to, if any.
func Ladder(cli, model string, configured []string) []string {
	rungs := configured
	if len(rungs) == 0 {
		rungs = Ladders[cli]
	}
	if len(rungs) == 0 {
		if model == "" {
			return nil
		}
		return []string{model}
	}
	if model == "" {
		return append([]string(nil), rungs...)
	}
	at := rungOf(rungs, model)
	if at < 0 {
		return []string{model}
	}
	out := []string{model}
	return append(out, rungs[at+1:]...)
}

// rungOf finds the rung model is on: the rung of that exact name, else the
// longest rung that is a prefix of it ("gpt-5-mini-2025-08-07" is on
// "gpt-5-mini", not "gpt-5"), else the rung of its Claude family
// ("claude-sonnet-4-5" is on "sonnet"); -1 when none.
func rungOf(rungs []string, model string) int {
	m := strings.ToLower(model)
	best := -1
	for i, r := range rungs {
		r = strings.ToLower(r)
		if m == r {
			return i
		}
		if strings.HasPrefix(m, r) && boundary(m, len(r)) && (best < 0 || len(r) > len(rungs[best])) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i, r := range rungs {
		if f := Family(r); f != "" && f == Family(m) {
			return i
		}
	}
	return -1
}

// Estimate is what a task is expected to cost on each rung of a ladder
// when nothing better is known (no history in the project): TaskTokens of
// input, a tenth of that as output, priced at each rung. Unknown rungs are
// estimated at the first known rung's price, so an estimate is never zero
// by ignorance.
func (t Table) Estimate(ladder []string, usage Usage) []float64 {
	out := make([]float64, len(ladder))
	var fallback *Price
	for _, r := range ladder {
		if p, ok := t.Lookup(r); ok {
			fallback = &p
			break
		}
	}
	for i, r := range ladder {
		p, ok := t.Lookup(r)
		if !ok && fallback != nil {
			p = *fallback
		}
		out[i] = p.Cost(usage)
	}
	return out
}

// TaskUsage is the size heuristic of one task when a project has no
// history: about 60k input tokens (most of it cached) and 4k of output,
// what Claude Code used per task in hive's own runs.
var TaskUsage = Usage{Input: 6_000, CacheRead: 50_000, CacheWrite: 4_000, Output: 4_000}

// contextWindows are the context windows of known model families, for a
// CLI that does not say (Claude Code says, in its result line's
// modelUsage; codex does not). Longest prefix wins.
var contextWindows = map[string]int64{
	"claude":        200_000,
	"claude-opus-5": 1_000_000, // Claude Code 2.1.330 reports 1,000,000 for claude-opus-5-5
	"gpt-5":         400_000,
	"gpt-4.1":       1_000_000,
	"o3":            200_000,
	"o4-mini":       200_000,
}

// ContextWindow is the context window of model as far as hive knows, or 0.
func ContextWindow(model string) int64 {
	m := strings.ToLower(strings.TrimSpace(model))
	best := ""
	for k := range contextWindows {
		if len(k) > len(best) && strings.HasPrefix(m, k) && boundary(m, len(k)) {
			best = k
		}
	}
	return contextWindows[best]
}
