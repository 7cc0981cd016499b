package adapter

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/work"
)

// claudeLimit classifies a Claude Code result line that ended on an API
// error (is_error with api_error_status; Claude Code 2.1.330, measured
// against the fake Anthropic server, see doc.go). reset is the epoch
// second of the usage limit's reset that the session's rate_limit_event
// or the synthetic assistant message gave, 0 when none did.
func claudeLimit(r rawLine, reset int64) *agent.Limit {
	if r.APIErrorStatus == 0 && r.APIErrorType == "" && r.APIError == "" {
		return nil
	}
	l := &agent.Limit{Status: r.APIErrorStatus}
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
	codexRateRE  = regexp.MustCompile(`(?i)\b(429|rate limit|too many requests)\b`)
	codexLoadRE  = regexp.MustCompile(`(?i)\b(529|overloaded|high demand|503|502|500 internal|server error)\b`)
	codexAuthRE  = regexp.MustCompile(`(?i)\b(401|403|unauthori[sz]ed|invalid api key|incorrect api key|authentication|not logged in|insufficient_quota)\b`)
)

// codexLimit classifies the message of a codex turn.failed or error event.
func codexLimit(msg string) *agent.Limit {
	switch {
	case codexUsageRE.MatchString(msg):
		l := &agent.Limit{Kind: work.LimitUsage, Status: 429}
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
		return &agent.Limit{Kind: work.LimitAuth}
	case codexRateRE.MatchString(msg):
		return &agent.Limit{Kind: work.LimitRate}
	case codexLoadRE.MatchString(msg):
		return &agent.Limit{Kind: work.LimitOverload}
	}
	return nil
}
