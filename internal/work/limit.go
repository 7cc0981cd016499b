package work

import (
	"fmt"
	"time"
)

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
	// Fallback: the agent that met it ran on the fallback agent
	// (OnLimitFallback), so going on with the fallback would not help.
	Fallback bool `json:"fallback,omitempty"`
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

// OnLimit is what a run does when an agent meets its account's usage
// limit (limits.on_limit, --on-limit). Rate limits and overloads pass
// within minutes, so every policy backs off and waits for them.
type OnLimit string

// The policies at a usage limit.
const (
	// OnLimitWait waits for the reset and goes on (the default; "" too).
	OnLimitWait OnLimit = "wait"
	// OnLimitStop stops the run once the agents at work have ended their
	// turns; the same command goes on from the journal, waiting for
	// whatever is left of the wait.
	OnLimitStop OnLimit = "stop"
	// OnLimitFallback goes on at once with the configured fallback agent
	// (limits.fallback: another CLI or model) for the rest of the run; a
	// limit the fallback meets too is waited for.
	OnLimitFallback OnLimit = "fallback"
)

// OnLimits are the policies, in the order they are offered.
var OnLimits = []OnLimit{OnLimitWait, OnLimitStop, OnLimitFallback}

// ParseOnLimit reads a policy's name ("" is wait).
func ParseOnLimit(s string) (OnLimit, error) {
	switch p := OnLimit(s); p {
	case "":
		return OnLimitWait, nil
	case OnLimitWait, OnLimitStop, OnLimitFallback:
		return p, nil
	}
	return "", fmt.Errorf("%q is not a policy at a usage limit: wait, stop or fallback", s)
}

// Stops says whether a run under policy p that waits for w stops now
// that running agents are at work: a usage limit under OnLimitStop, once
// no agent is left to end its turn.
func (p OnLimit) Stops(w *LimitWait, running int) bool {
	return p == OnLimitStop && w != nil && w.Kind == LimitUsage && running == 0
}

// StoppedAtLimit ends a run that stopped at a usage limit, as
// OnLimitStop says: its journal keeps the wait, and the same command goes
// on from it, waiting for whatever is left.
type StoppedAtLimit struct{ Wait LimitWait }

func (e *StoppedAtLimit) Error() string {
	return fmt.Sprintf("stopped at the provider's usage limit (limits.on_limit stop): %s", e.Wait.Resets())
}

// Resets says when the wait ends: the reset, or, where the CLI said no
// time, when the run tries again.
func (w LimitWait) Resets() string {
	at := w.Until.UTC().Format("2006-01-02 15:04:05 MST")
	if w.Guessed {
		return "the CLI said no reset time; the run tries again at " + at
	}
	return "it resets at " + at
}
