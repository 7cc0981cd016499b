package agent

import (
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/work"
)

// Limit is a turn that ended on an error of the provider's, not of the
// agent's work: the account's usage limit, a rate limit, an overload, or
// a login that does not work. The first three pass with time; the last
// needs a human. An adapter sets it on the OutResult of such a turn.
type Limit struct {
	Kind work.LimitKind
	// Reset is when the usage limit resets, where the CLI says (zero:
	// not said). After is the same said as a wait from the line's time
	// (codex: "try again in 2 days 17 hours 14 minutes"), Clock as a time
	// of day in the machine's zone, dated when it is not today (codex:
	// "try again at 2:31 PM", "try again at Dec 3rd, 2026 1:56 AM"): see
	// ResetAt.
	Reset time.Time
	After time.Duration
	Clock string
	// Status is the API's HTTP status, where the CLI says (0: not said).
	Status int
	// Window is which window of the usage limit was reached, as the CLI
	// names it (Claude Code: five_hour, seven_day, ...).
	Window string
}

// ResetAt is when the usage limit resets, for a line read at now: Reset,
// else now plus After, else Clock in now's zone (the machine's, where
// codex said it): its date where it has one, else the next such time of
// day after now; zero when the CLI did not say.
func (l *Limit) ResetAt(now time.Time) time.Time {
	switch {
	case !l.Reset.IsZero():
		return l.Reset
	case l.After > 0:
		return now.Add(l.After)
	case l.Clock != "":
		return clockAt(l.Clock, now)
	}
	return time.Time{}
}

// clockAt reads a time codex said: "2:31 PM", or dated, "Dec 3rd, 2026
// 1:56 AM" (codex 0.169.0 dates a reset that is not today, the day with
// its English suffix).
func clockAt(said string, now time.Time) time.Time {
	said = strings.ToUpper(strings.Join(strings.Fields(said), " "))
	if codexDayRE.MatchString(said) {
		said = codexDayRE.ReplaceAllString(said, "$1,") // "DEC 3RD," -> "DEC 3,"
		at, err := time.ParseInLocation("Jan 2, 2006 3:04 PM", said, now.Location())
		if err != nil {
			return time.Time{}
		}
		return at
	}
	c, err := time.ParseInLocation("3:04 PM", said, now.Location())
	if err != nil {
		return time.Time{}
	}
	at := time.Date(now.Year(), now.Month(), now.Day(), c.Hour(), c.Minute(), 0, 0, now.Location())
	if !at.After(now) {
		at = at.AddDate(0, 0, 1)
	}
	return at
}

// codexDayRE is the date of a reset codex says is not today ("Dec 3rd,":
// the day with its English suffix); the adapter package reads the rest of
// what codex says of a provider's error.
var codexDayRE = regexp.MustCompile(`^([A-Z]{3} \d{1,2})(?:ST|ND|RD|TH)?,`)
