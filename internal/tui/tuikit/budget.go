package tuikit

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// CeilingsSpent is what was spent of each ceiling ("$3.41 of $5.00
// (68%)", "1.2M of 2M tokens (60%)"), either machine's; "" for none.
func CeilingsSpent(c work.Ceilings, sp work.Spend) string {
	var parts []string
	if c.USD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f of $%.2f (%.0f%%)", sp.CostUSD, c.USD, 100*sp.CostUSD/c.USD))
	}
	if c.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s tokens (%.0f%%)", Tokens(sp.Tokens()), RoundTokens(c.Tokens), 100*float64(sp.Tokens())/float64(c.Tokens)))
	}
	return strings.Join(parts, ", ")
}

// RoundTokens reads a ceiling of tokens as 500, 50k or 2M, or as Tokens
// does when it is not round.
func RoundTokens(n int64) string {
	return strings.Replace(strings.Replace(Tokens(n), ".0k", "k", 1), ".0M", "M", 1)
}

// BudgetStyled styles a spend against its ceiling: a warning from
// work.WarnShare, an error at the ceiling.
func BudgetStyled(text string, spent, ceiling float64) string {
	switch {
	case spent >= ceiling:
		return StError.Render(text)
	case spent >= work.WarnShare*ceiling:
		return StAction.Render(text)
	}
	return text
}
