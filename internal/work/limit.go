package work

import "time"

// Limit is a turn of an agent that ended on its provider's limit rather
// than on its own work: the account's usage limit, a rate limit, an
// overload, or a login the provider refused. The first three pass with
// time and are account-wide, so a run waits for them rather than failing
// the work; the last needs a human.
type Limit struct {
	Kind LimitKind `json:"kind"`
	// Reset is when a usage limit resets, where the CLI said (zero: it
	// did not).
	Reset time.Time `json:"reset,omitzero"`
	// Window is which of the usage limit's windows was reached, as the CLI
	// names it (five_hour, seven_day).
	Window string `json:"window,omitempty"`
	// Text is what the CLI said.
	Text string `json:"text,omitempty"`
}

// LimitKind tells limits apart.
type LimitKind string

// Limit kinds.
const (
	// LimitUsage: the account's usage limit (a subscription's five-hour or
	// weekly window) is reached; it lasts until its reset.
	LimitUsage LimitKind = "usage"
	// LimitRate: the API limits the requests (HTTP 429 that is not the
	// usage limit); it passes within seconds to minutes.
	LimitRate LimitKind = "rate"
	// LimitOverload: the provider is overloaded or failing (HTTP 529, 5xx).
	LimitOverload LimitKind = "overload"
	// LimitAuth: the provider refused the CLI's login or key, or the
	// account has no credit left: a human must fix it.
	LimitAuth LimitKind = "auth"
)

// Awaited is what a run waits for at a limit of kind k, in words.
func (k LimitKind) Awaited() string {
	switch k {
	case LimitUsage:
		return "the usage limit's reset"
	case LimitRate:
		return "the rate limit to pass"
	case LimitOverload:
		return "the provider's overload to pass"
	}
	return "the provider's " + string(k) + " limit to pass"
}

// Passes says whether the limit passes with time (everything but a
// refused login).
func (k LimitKind) Passes() bool { return k == LimitUsage || k == LimitRate || k == LimitOverload }
