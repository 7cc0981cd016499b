package oneshot

import (
	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/work"
)

// Meter prices an agent session's usage as it comes: hive's price for a
// model it knows, else the CLI's own figure.
type Meter struct {
	prices  pricing.Table
	session float64 // the session's cost so far
}

// NewMeter is a Meter of a new session with prices (nil: the built-in
// table).
func NewMeter(prices pricing.Table) *Meter {
	if prices == nil {
		prices = pricing.Defaults()
	}
	return &Meter{prices: prices}
}

// Turn is one usage report's tokens, with the session's cost so far.
func (m *Meter) Turn(out agent.Output) work.Spend {
	u := out.Usage
	turn := work.Spend{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
	if usd, ok := m.prices.Cost(out.Model, pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens,
		CacheWrite: u.CacheCreationInputTokens, CacheRead: u.CacheReadInputTokens}); ok {
		m.session += usd
	} else {
		m.session = max(m.session, out.CostUSD) // a model without a price: the CLI's figure
	}
	turn.CostUSD = m.session
	return turn
}
