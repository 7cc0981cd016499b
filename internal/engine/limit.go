package engine

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/work"
)

// LimitID is the plan id that `hive answer` uses to end a wait for the
// provider at once: `hive answer limit resume-now`.
const LimitID = "limit"

// ResumeNow is the answer that ends the wait for the provider at once.
const ResumeNow = "resume-now"

// limitRules is the engine version from which a turn that ended on the
// provider's limit (EvLimited) makes the run wait rather than fail.
const limitRules = 9

// LimitWait is the run waiting for a provider's limit to pass: no new agent
// starts until Until (a CmdWake); the agents at work finish their turns.
// A limit is the account's, so one agent's limit holds every agent.
type LimitWait struct {
	Kind work.LimitKind `json:"kind"`
	// Until is when the run goes on: the usage limit's reset, or the end
	// of a backoff.
	Until time.Time `json:"until"`
	Since time.Time `json:"since"`
	Plan  string    `json:"plan"` // whose turn met the limit (the latest)
	Text  string    `json:"text,omitempty"`
	// Told: the reset was not said, and Until is a probe.
	Guessed bool `json:"guessed,omitempty"`
}

// Backoffs of a rate limit or an overload: the first waits BackoffBase,
// each next twice as long up to BackoffMax, each give or take a quarter
// (the jitter is drawn from the plan and the count, so a replay draws the
// same). A usage limit whose reset the CLI did not say is probed every
// UsageProbe.
const (
	BackoffBase = 30 * time.Second
	BackoffMax  = 10 * time.Minute
	UsageProbe  = 15 * time.Minute
)

// limited handles a turn that ended on the provider's limit (rules 9): a
// limit that passes with time makes the run wait (waitFor), and the
// plan's agent is stopped and its plan goes back to the queue, to go on
// from its commits when the wait ends, without spending a retry. A login
// the provider refused, and a limit met by a resolver or the verifier, go
// the way a failed turn goes.
func (e *Engine) limited(ev Event) ([]Command, error) {
	if ev.Limit == nil {
		return nil, fmt.Errorf("limited %s without its limit", ev.Plan)
	}
	p := e.byID[ev.Plan]
	switch {
	case p != nil && (ev.Attempt != p.Attempt || p.State != Running && p.State != Waiting):
		return nil, nil // an earlier attempt's, or one whose limit was met already (codex says it twice)
	case ev.Plan == VerifyID && (ev.Attempt != e.vj.Attempt || e.vj.Stage != VerifyAgent):
		return nil, nil
	}
	l := *ev.Limit
	failed := ev
	failed.Type, failed.Reason = EvPlanFailed, "the agent's turn ended on the provider's "+describeLimit(l)
	if e.rules < limitRules || !l.Kind.Passes() {
		if l.Kind == work.LimitAuth {
			failed.Reason += ": fix the CLI's login or key, then answer retry"
		}
		return e.step(failed)
	}
	out := e.waitFor(nil, ev.Plan, l)
	if p == nil || ev.Attempt != p.Attempt || p.State != Running || p.Stage != StageWork || p.check != CheckNone {
		// A resolver's, the verifier's, or a turn of before: the wait
		// holds what starts next; the job goes the way a failed turn does.
		cmds, err := e.step(failed)
		return append(out, cmds...), err
	}
	out = e.interrupt(out, p, "the provider's "+describeLimit(l))
	return e.schedule(e.restart(out, p, fmt.Sprintf("the provider's %s stopped the agent: the plan goes on from its commits once the wait is over", describeLimit(l)))), nil
}

// waitFor starts, or lengthens, the run's wait for limit l met by plan's
// agent, and asks to be woken when it ends.
func (e *Engine) waitFor(out []Command, plan string, l work.Limit) []Command {
	until, guessed := l.Reset, false
	switch {
	case l.Kind != work.LimitUsage:
		e.backoffs++
		until = e.now.Add(backoff(plan, e.backoffs))
	case until.IsZero() || !until.After(e.now):
		until, guessed = e.now.Add(UsageProbe), true
	}
	if w := e.limit; w != nil && !until.After(w.Until) {
		w.Plan, w.Text = plan, l.Text
		return out // already waiting as long
	}
	since := e.now
	if e.limit != nil {
		since = e.limit.Since
	}
	e.limit = &LimitWait{Kind: l.Kind, Until: until, Since: since, Plan: plan, Text: l.Text, Guessed: guessed}
	return append(out, Command{Type: CmdNote, Plan: plan, Text: e.limitNote()}, Command{Type: CmdWake, At: until})
}

// limitNote says what the run waits for.
func (e *Engine) limitNote() string {
	w := e.limit
	what := w.Kind.Awaited()
	at := w.Until.UTC().Format("15:04:05 MST")
	if w.Guessed {
		return fmt.Sprintf("waiting for %s (it said no time: trying again at %s, in %s); no agent starts meanwhile, and no retry is spent", what, at, w.Until.Sub(e.now).Round(time.Second))
	}
	return fmt.Sprintf("waiting for %s at %s (in %s); no agent starts meanwhile, and no retry is spent", what, at, w.Until.Sub(e.now).Round(time.Second))
}

// limitWake ends the wait once its time has come.
func (e *Engine) limitWake(out []Command) []Command {
	if e.limit == nil || e.now.Before(e.limit.Until) {
		return out
	}
	w := e.limit
	e.limit = nil
	out = append(out, Command{Type: CmdNote, Text: fmt.Sprintf("the wait for the provider's %s is over after %s: going on", describeLimit(work.Limit{Kind: w.Kind}), e.now.Sub(w.Since).Round(time.Second))})
	if e.budget.open != nil {
		return out // the budget still holds them
	}
	return e.unhold(out)
}

// limitAnswered ends the wait at once, as a human asked (`hive answer limit
// resume-now`): the plans go on, and meet the limit again if it has not
// passed.
func (e *Engine) limitAnswered(ev Event) ([]Command, error) {
	if e.limit == nil {
		return nil, fmt.Errorf("the run is not waiting for the provider: there is nothing to resume")
	}
	if t := strings.ToLower(strings.TrimSpace(ev.Text)); t != ResumeNow && t != "resume" {
		return nil, fmt.Errorf("the answer %q: answer %s to go on now, or let the run go on by itself at %s", ev.Text, ResumeNow, e.limit.Until.UTC().Format("15:04 MST"))
	}
	by := ev.By
	if by == "" {
		by = "a human"
	}
	out := []Command{{Type: CmdNote, Text: fmt.Sprintf("%s asked to go on now, before %s at %s", by, e.limit.Kind.Awaited(), e.limit.Until.UTC().Format("15:04:05 MST"))}}
	e.limit.Until = e.now
	return e.schedule(e.limitWake(out)), nil
}

// limitResumed asks again, after a resume, to be woken when the wait ends
// (the timer died with the process), or ends it when its time has passed.
func (e *Engine) limitResumed(out []Command) []Command {
	if e.limit == nil {
		return out
	}
	if !e.now.Before(e.limit.Until) {
		return e.limitWake(out)
	}
	return append(out, Command{Type: CmdNote, Text: "still " + e.limitNote()}, Command{Type: CmdWake, At: e.limit.Until})
}

// backoff is the n-th wait in a row for a rate limit or an overload.
func backoff(plan string, n int) time.Duration {
	d := BackoffBase
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	d = min(d, BackoffMax)
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", plan, n)
	jitter := float64(h.Sum32()%1000)/1000*0.5 - 0.25 // -25% .. +25%
	return d + time.Duration(float64(d)*jitter).Round(time.Second)
}

// describeLimit names a limit in words.
func describeLimit(l work.Limit) string {
	what := map[work.LimitKind]string{work.LimitUsage: "usage limit", work.LimitRate: "rate limit", work.LimitOverload: "overload", work.LimitAuth: "refusal of the login"}[l.Kind]
	if what == "" {
		what = string(l.Kind) + " limit"
	}
	if l.Text != "" {
		what += " (" + l.Text + ")"
	}
	return what
}
