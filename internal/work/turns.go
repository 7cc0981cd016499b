package work

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// Turns is what a budget knows of its agents' turns, for the rule that a
// new turn starts only if what is left of the dollar ceiling holds it and
// every turn in flight (Short). A turn's cost is known only as it is
// reported: a few requests' worth mid-turn where the CLI says, the rest
// at its end (Claude Code reports a turn's output tokens only there). What
// the run's turns cost bounds what the next one may.
//
// Both machines keep one, fed from their journaled events, so a resumed
// run and a Temporal replay see the same turns. The zero value is empty.
type Turns struct {
	inFlight map[TurnKey]TurnLoad
	largest  float64 // the largest turn so far, ended or still in flight
	ended    bool    // a turn has ended: largest is the run's own measure
}

// TurnKey names an agent's session: its job (a plan, the verifier, a
// role) and attempt.
type TurnKey struct {
	Job     string
	Attempt int
}

// TurnLoad is a session's turns in flight: how many were started and have
// not ended (a live agent may be sent its next message as its turn ends),
// and what they reported so far.
type TurnLoad struct {
	N   int
	USD float64
}

// Started counts a turn that starts: an agent, or a message that sets a
// live agent working again.
func (t *Turns) Started(job string, attempt int) {
	if t.inFlight == nil {
		t.inFlight = map[TurnKey]TurnLoad{}
	}
	k := TurnKey{job, attempt}
	l := t.inFlight[k]
	l.N++
	t.inFlight[k] = l
}

// Spent adds usd, spent by the session's turn in flight; ended says the
// turn ended with it. A session whose turns were not counted as started
// (one of an earlier process, after a resume) counts towards the largest
// turn only.
func (t *Turns) Spent(job string, attempt int, usd float64, ended bool) {
	k := TurnKey{job, attempt}
	l, ok := t.inFlight[k]
	l.USD += usd
	t.largest = max(t.largest, l.USD)
	if ended {
		t.ended = true
		l.N, l.USD = l.N-1, 0
	}
	switch {
	case !ok:
	case l.N <= 0:
		delete(t.inFlight, k)
	default:
		t.inFlight[k] = l
	}
}

// Gone forgets the turns of a session that ended: what it did not report
// it will not.
func (t *Turns) Gone(job string, attempt int) { delete(t.inFlight, TurnKey{job, attempt}) }

// Ended forgets every turn in flight: the process that started them is
// gone (a resume). What they cost is still known.
func (t *Turns) Ended() { t.inFlight = nil }

// Largest is the largest turn so far, and whether any turn has ended.
func (t *Turns) Largest() (usd float64, ended bool) { return t.largest, t.ended }

// InFlight is every session with turns in flight, in order.
func (t *Turns) InFlight() []TurnKey {
	return slices.SortedFunc(maps.Keys(t.inFlight), func(x, y TurnKey) int {
		return cmp.Or(cmp.Compare(x.Job, y.Job), cmp.Compare(x.Attempt, y.Attempt))
	})
}

// Load is k's turns in flight.
func (t *Turns) Load(k TurnKey) TurnLoad { return t.inFlight[k] }

// Restore is Turns as exported by Largest, InFlight and Load.
func Restore(largest float64, ended bool, inFlight map[TurnKey]TurnLoad) Turns {
	return Turns{inFlight: inFlight, largest: largest, ended: ended}
}

// Short reports whether what is left of a dollar ceiling (ceiling less
// spent) is too little for another turn, and says so. A turn may cost as
// much as the largest so far; before any turn has ended, estimate stands
// in when it is more (what says what it is). The next turn starts only if
// what is left holds it and, as much again, each turn in flight (less
// what that turn has reported). Turns that cost no more than the largest
// before them then never pass the ceiling together.
func (t *Turns) Short(ceiling, spent, estimate float64, what string) (string, bool) {
	if ceiling <= 0 {
		return "", false
	}
	bound := t.largest
	if !t.ended && estimate > bound {
		bound = estimate
	} else {
		what = "the largest turn so far"
	}
	if bound <= 0 {
		return "", false
	}
	left, n := ceiling-spent, 0
	for _, k := range t.InFlight() { // in order: the same sum on every replay
		l := t.inFlight[k]
		left -= max(0, float64(l.N)*bound-l.USD)
		n += l.N
	}
	if left >= bound {
		return "", false
	}
	return fmt.Sprintf("$%.2f of $%.2f spent, %d turn(s) in flight; another turn may cost $%.2f (%s)", spent, ceiling, n, bound, what), true
}
