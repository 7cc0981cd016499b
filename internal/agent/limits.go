package agent

import (
	"regexp"
	"strconv"
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

// claudeLimit classifies a Claude Code result line that ended on an API
// error (is_error with api_error_status; Claude Code 2.1.330, measured
// against the fake Anthropic server, see doc.go). reset is the epoch
// second of the usage limit's reset that the session's rate_limit_event
// or the synthetic assistant message gave, 0 when none did.
func claudeLimit(r rawLine, reset int64) *Limit {
	if r.APIErrorStatus == 0 && r.APIErrorType == "" && r.APIError == "" {
		return nil
	}
	l := &Limit{Status: r.APIErrorStatus}
	switch {
	case r.APIError == "usage_limit_reached":
		l.Kind = work.LimitUsage
		if reset > 0 {
			l.Reset = time.Unix(reset, 0).UTC()
		}
	case r.APIErrorStatus == 429 || r.APIErrorType == "rate_limit_error":
		l.Kind = work.LimitRate
	case r.APIErrorStatus == 401 || r.APIErrorStatus == 403 || r.APIErrorType == "authentication_error" ||
		r.APIErrorType == "permission_error" || r.APIErrorType == "billing_error":
		l.Kind = work.LimitAuth
	case r.APIErrorStatus == 529 || r.APIErrorStatus >= 500 || r.APIErrorType == "overloaded_error" || r.APIErrorType == "api_error":
		l.Kind = work.LimitOverload
	default:
		return nil // a request hive or the agent got wrong (400, 413): the agent's
	}
	return l
}

// codexUsageRE and its kin read what codex says of a provider's error.
// Measured with codex 0.169.0 against the fake OpenAI server: a 429
// usage_limit_reached whose reset is two hours ahead is "You’ve hit your
// usage limit. Upgrade to Pro (…), visit … to purchase more credits or try
// again at 2:31 PM." (the machine's zone), and where the reset is not
// today "… or try again at Dec 3rd, 2026 1:56 AM."; a plain 429 after its retries
// "exceeded retry limit, last status: 429 Too Many Requests"; a 500 "We’re
// currently experiencing high demand, which may cause temporary errors.";
// a 503 "unexpected status 503 Service Unavailable: …"; a 401 "unexpected
// status 401 Unauthorized: Incorrect API key provided, url: …". A reset
// days ahead is said "try again in 2 days 17 hours 14 minutes" (users'
// reports of earlier versions).
var (
	codexUsageRE = regexp.MustCompile(`(?i)\b(hit your usage limit|usage limit (has been )?reached|usage_limit_reached)\b`)
	codexInRE    = regexp.MustCompile(`(?i)try again in ((?:\d+\s*(?:days?|hours?|minutes?|seconds?)[\s,]*(?:and\s+)?)+)`)
	codexPartRE  = regexp.MustCompile(`(?i)(\d+)\s*(day|hour|minute|second)`)
	codexAtRE    = regexp.MustCompile(`(?i)try again at ((?:[a-z]{3}\s+\d{1,2}(?:st|nd|rd|th)?,\s*\d{4}\s+)?\d{1,2}:\d{2}\s*[AP]M)\b`)
	codexDayRE   = regexp.MustCompile(`^([A-Z]{3} \d{1,2})(?:ST|ND|RD|TH)?,`)
	codexRateRE  = regexp.MustCompile(`(?i)\b(429|rate limit|too many requests)\b`)
	codexLoadRE  = regexp.MustCompile(`(?i)\b(529|overloaded|high demand|503|502|500 internal|server error)\b`)
	codexAuthRE  = regexp.MustCompile(`(?i)\b(401|403|unauthori[sz]ed|invalid api key|incorrect api key|authentication|not logged in|insufficient_quota)\b`)
)

// codexLimit classifies the message of a codex turn.failed or error event.
func codexLimit(msg string) *Limit {
	switch {
	case codexUsageRE.MatchString(msg):
		l := &Limit{Kind: work.LimitUsage, Status: 429}
		if m := codexInRE.FindStringSubmatch(msg); m != nil {
			for _, p := range codexPartRE.FindAllStringSubmatch(m[1], -1) {
				n, _ := strconv.Atoi(p[1])
				unit := map[string]time.Duration{"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second}[strings.ToLower(p[2])]
				l.After += time.Duration(n) * unit
			}
		}
		if m := codexAtRE.FindStringSubmatch(msg); m != nil {
			l.Clock = m[1]
		}
		return l
	case codexAuthRE.MatchString(msg):
		return &Limit{Kind: work.LimitAuth}
	case codexRateRE.MatchString(msg):
		return &Limit{Kind: work.LimitRate}
	case codexLoadRE.MatchString(msg):
		return &Limit{Kind: work.LimitOverload}
	}
	return nil
}
