package work

// Spend is what agents' turns used: tokens, and what they cost.
type Spend struct {
	InputTokens      int64 `json:"input_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// CostUSD is the turns' cost priced by hive (for turns journaled before
	// hive priced them, engine version 3 and older: the CLIs' own figures).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// CLICostUSD is what the CLIs said the sessions cost, where they say:
	// the cross-check of CostUSD.
	CLICostUSD float64 `json:"cli_cost_usd,omitempty"`
}

// Tokens is every token counted: input, output, and cache writes and reads.
func (s Spend) Tokens() int64 {
	return s.InputTokens + s.OutputTokens + s.CacheReadTokens + s.CacheWriteTokens
}

// Plus is the sum of two spends.
func (s Spend) Plus(o Spend) Spend {
	return Spend{s.InputTokens + o.InputTokens, s.OutputTokens + o.OutputTokens, s.CacheReadTokens + o.CacheReadTokens,
		s.CacheWriteTokens + o.CacheWriteTokens, s.CostUSD + o.CostUSD, s.CLICostUSD + o.CLICostUSD}
}

// Minus is what s has beyond o.
func (s Spend) Minus(o Spend) Spend {
	return s.Plus(Spend{-o.InputTokens, -o.OutputTokens, -o.CacheReadTokens, -o.CacheWriteTokens, -o.CostUSD, -o.CLICostUSD})
}
