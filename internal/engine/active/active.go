package active

import (
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// Clock is the run's active time as its events tell it.
type Clock struct {
	active      time.Duration
	lastOwn     time.Time        // the latest event of a running hive
	down        []phase.Downtime // when hive was not running, between a stop and a resume
	foreignGain time.Duration    // active time added by `hive answer` events since lastOwn
}

// Tick adds the time since the previous event to the run's active time,
// except across a resume: hive was down in between. An answer given with
// `hive answer` may come while hive is down, so its time counts only once
// a running hive's own event follows it.
func (c *Clock) Tick(ev phase.Event) {
	if ev.Time.IsZero() {
		return
	}
	if c.lastOwn.IsZero() || ev.Type == phase.EvRunStarted {
		c.lastOwn = ev.Time
		return
	}
	gain := max(0, ev.Time.Sub(c.lastOwn)-c.foreignGain)
	switch {
	case ev.Type == phase.EvResumed:
		if ev.Time.After(c.lastOwn) {
			c.down = append(c.down, phase.Downtime{From: c.lastOwn, To: ev.Time})
		}
		c.foreignGain, c.lastOwn = 0, ev.Time
	case ev.Type == phase.EvAnswer && ev.By == "hive answer":
		c.foreignGain += gain
	default:
		c.active += gain + c.foreignGain
		c.foreignGain, c.lastOwn = 0, ev.Time
	}
}

// Active is how long hive has run the run so far (until LastEvent).
func (c *Clock) Active() time.Duration { return c.active }

// LastEvent is the time of the latest event of a running hive.
func (c *Clock) LastEvent() time.Time { return c.lastOwn }

// Down are the times hive was not running the run, oldest first: a copy.
func (c *Clock) Down() []phase.Downtime { return append([]phase.Downtime(nil), c.down...) }

// Record puts the clock into s, the engine's exported state.
func (c *Clock) Record(s *phase.State) {
	s.Active, s.LastOwn, s.Down, s.ForeignGain = c.active, c.lastOwn, c.Down(), c.foreignGain
}

// Restore is the clock that s records.
func Restore(s phase.State) Clock {
	return Clock{active: s.Active, lastOwn: s.LastOwn, down: s.Down, foreignGain: s.ForeignGain}
}
