package testsupport

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Clock is a clock that a test moves on: Now is the wall clock plus what
// the test added (Advance); a timer (After) fires once the clock has
// passed it. A run given it as its clock waits hours of its own time in a
// moment of the test's.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
	timers []clockTimer
}

type clockTimer struct {
	at time.Time
	f  func()
}

// clockPatience is how long a test waits for the run to reach what moves
// its clock: a run of real agent CLIs on a loaded machine takes minutes to
// get there.
const clockPatience = 4 * time.Minute

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// After calls f, on a goroutine of its own, once d has passed on the
// clock (at once when it has).
func (c *Clock) After(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, clockTimer{at: time.Now().Add(c.offset + d), f: f})
	c.fire()
}

// Advance moves the clock on by d and fires the timers it passed.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	c.fire()
}

func (c *Clock) fire() {
	now := time.Now().Add(c.offset)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at.After(now) {
			kept = append(kept, tm)
			continue
		}
		go tm.f()
	}
	c.timers = kept
}

// AdvanceToTimer waits (within clockPatience of the wall clock) for a
// timer set at least min ahead, and moves the clock on past it: the test
// plays the time a run waits for.
func (c *Clock) AdvanceToTimer(t testing.TB, min time.Duration) {
	deadline := time.Now().Add(clockPatience)
	for {
		c.mu.Lock()
		now := time.Now().Add(c.offset)
		for _, tm := range c.timers {
			if tm.at.Sub(now) >= min {
				c.offset += tm.at.Sub(now) + time.Second
				c.fire()
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			t.Errorf("no timer %s ahead was set", min)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// AdvanceWhen moves the clock on by d once said() holds text (within
// clockPatience; else the test fails).
func (c *Clock) AdvanceWhen(t testing.TB, said func() string, text string, d time.Duration) {
	deadline := time.Now().Add(clockPatience)
	for !strings.Contains(said(), text) {
		if time.Now().After(deadline) {
			t.Errorf("%q was never said", text)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Advance(d)
}
