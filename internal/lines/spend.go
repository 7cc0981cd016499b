package lines

import (
	"fmt"

	"github.com/hivectl/hive/internal/tui/tuikit"
	"github.com/hivectl/hive/internal/work"
)

// SpendText is a run's spend for its total line: input and output tokens,
// what the prompt cache did, and the dollars.
func SpendText(sp work.Spend) string {
	text := fmt.Sprintf("%d tokens", sp.InputTokens+sp.OutputTokens)
	if c := CacheText(sp); c != "" {
		text += " (" + c + ")"
	}
	return text + fmt.Sprintf(", $%.2f", sp.CostUSD)
}

// CacheText says what the prompt cache did for a run: the tokens read
// from it and written to it, and the share of the input it gave ("cache
// read 1.2M, written 50.1k: 95% of the input read from the cache"). ""
// when the agents' CLIs used no cache or did not say.
func CacheText(sp work.Spend) string {
	if sp.CacheReadTokens == 0 && sp.CacheWriteTokens == 0 {
		return ""
	}
	input := sp.InputTokens + sp.CacheReadTokens + sp.CacheWriteTokens
	return fmt.Sprintf("cache read %s, written %s: %.0f%% of the input read from the cache",
		tuikit.Tokens(sp.CacheReadTokens), tuikit.Tokens(sp.CacheWriteTokens), 100*float64(sp.CacheReadTokens)/float64(input))
}

// RunSpendText is spendText for a whole run of agent: the sim's tokens
// are made up (it calls no model), and the figure says so.
func RunSpendText(sp work.Spend, agent string) string {
	text := SpendText(sp)
	if agent == "sim" {
		text += ", simulated (the sim agent calls no model)"
	}
	return text
}
