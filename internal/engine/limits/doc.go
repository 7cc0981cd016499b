// Package limits is the run's wait for its provider's limits, as the
// engine follows it: a turn that ended on a usage limit, a rate limit or
// an overload makes the run wait (work.Waits) for the limit to pass, or
// switch to the fallback agent, rather than fail; the wait holds every new
// agent until its time comes, a human ends it, or a resume finds it over.
package limits
