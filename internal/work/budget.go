package work

import (
	"fmt"
	"strconv"
	"strings"
)

// Ceilings are what a run may spend (seed 003 §5), in dollars and in
// tokens (input, output and cache, all counted); 0: no ceiling. They are
// fixed when the run starts and raised only by a human's answer to the
// budget checkpoint (ReadBudgetAnswer).
type Ceilings struct {
	USD    float64 `json:"usd,omitempty"`
	Tokens int64   `json:"tokens,omitempty"`
}

// WarnShare is the share of a ceiling after which the remaining work runs
// one rung down the model ladder (seed 003 §5.3).
const WarnShare = 0.8

// Ladder is where a run stands on its agents' model ladders (seed 003
// §5.3), the same for both machines: once WarnShare of a ceiling is spent
// with work left, the agents started from then on go one rung down, when
// there is a cheaper rung; a raise that leaves less than WarnShare spent
// starts them on the top rung again.
type Ladder struct {
	Rung   int  // the rung every new agent starts on at least: 1 after the warning
	Warned bool // WarnShare was passed (and said)
}

// Warn is the note said once share of a ceiling is spent with work left
// (ok false: nothing to say now). cheaper: a ladder has a cheaper rung, to
// which the agents (who) started from now on go.
func (l *Ladder) Warn(share float64, workLeft, cheaper bool, who string) (note string, ok bool) {
	if l.Warned || share < WarnShare || !workLeft {
		return "", false
	}
	l.Warned = true
	note = fmt.Sprintf("budget: %.0f%% spent with work remaining", 100*share)
	if cheaper {
		l.Rung = 1
		note += ": the " + who + " started from now on use a cheaper model"
	}
	return note, true
}

// Raised sets the ladder after a raise that leaves share of a ceiling
// spent.
func (l *Ladder) Raised(share float64) {
	l.Warned = share >= WarnShare
	if !l.Warned {
		l.Rung = 0
	}
}

// Limited says whether there is a ceiling at all.
func (c Ceilings) Limited() bool { return c.USD > 0 || c.Tokens > 0 }

// Reached says whether spent has reached a ceiling, and which, in words.
func (c Ceilings) Reached(spent Spend) (string, bool) {
	switch {
	case c.USD > 0 && spent.CostUSD >= c.USD:
		return fmt.Sprintf("$%.2f of $%.2f spent", spent.CostUSD, c.USD), true
	case c.Tokens > 0 && spent.Tokens() >= c.Tokens:
		return fmt.Sprintf("%d of %d tokens spent", spent.Tokens(), c.Tokens), true
	}
	return "", false
}

// Share is the largest share of a ceiling that spent is.
func (c Ceilings) Share(spent Spend) float64 {
	s := 0.0
	if c.USD > 0 {
		s = spent.CostUSD / c.USD
	}
	if c.Tokens > 0 {
		s = max(s, float64(spent.Tokens())/float64(c.Tokens))
	}
	return s
}

// Raised is c with every ceiling multiplied by factor.
func (c Ceilings) Raised(factor float64) Ceilings {
	return Ceilings{USD: c.USD * factor, Tokens: int64(float64(c.Tokens) * factor)}
}

// String says the ceilings: "$5.00", "2000000 tokens", "$5.00 and 2000000
// tokens"; "" for none.
func (c Ceilings) String() string {
	var parts []string
	if c.USD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", c.USD))
	}
	if c.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", c.Tokens))
	}
	return strings.Join(parts, " and ")
}

// ReadBudgetAnswer reads an answer to a budget checkpoint whose ceiling is
// now limit (dollars, or tokens for a token ceiling): stop (or abort), or
// the factor the ceilings are raised by: raise (half as much again), or
// raise AMOUNT, $AMOUNT or AMOUNT, the new ceiling.
func ReadBudgetAnswer(text string, limit float64) (stop bool, factor float64, err error) {
	text = strings.ToLower(strings.TrimSpace(text))
	switch {
	case text == "stop" || text == "abort":
		return true, 0, nil
	case text == "raise":
		return false, 1.5, nil
	case strings.HasPrefix(text, "raise ") || strings.HasPrefix(text, "$") || startsWithDigit(text):
		amount := strings.TrimSpace(strings.TrimPrefix(text, "raise"))
		n, err := strconv.ParseFloat(strings.TrimPrefix(strings.ReplaceAll(amount, ",", ""), "$"), 64)
		if err != nil || n <= 0 || limit <= 0 {
			return false, 0, fmt.Errorf("the budget answer %q: give raise, raise AMOUNT (dollars, or tokens for a token budget) or stop", text)
		}
		return false, n / limit, nil
	}
	return false, 0, fmt.Errorf("the budget answer %q: give raise, raise AMOUNT or stop", text)
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }
