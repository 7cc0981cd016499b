package work

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// LimitWait is a run waiting for its provider's limit to pass: no new
// agent starts until Until; the agents at work finish their turns. A limit
// is the account's, so one agent's limit holds every agent.
type LimitWait struct {
	Kind LimitKind `json:"kind"`
	// Until is when the run goes on: the usage limit's reset, or the end
	// of a backoff.
	Until time.Time `json:"until"`
	Since time.Time `json:"since"`
	Job   string    `json:"job"` // whose turn met the limit (the latest)
	Text  string    `json:"text,omitempty"`
	// Guessed: the reset was not said, and Until is a probe.
	Guessed bool `json:"guessed,omitempty"`
}

// Backoffs of a rate limit or an overload: the first waits BackoffBase,
// each next twice as long up to BackoffMax, each give or take a quarter
// (the jitter is drawn from the job and the count, so a replay draws the
// same). A usage limit whose reset the CLI did not say is probed every
// UsageProbe.
const (
	BackoffBase = 30 * time.Second
	BackoffMax  = 10 * time.Minute
	UsageProbe  = 15 * time.Minute
)

// Waits are a run's waits for its provider: the one under way, and how
// many rate limits and overloads came in a row. The machines keep one and
// feed it their events; it decides, they act.
type Waits struct {
	Wait     *LimitWait `json:"wait,omitempty"`
	Backoffs int        `json:"backoffs,omitempty"`
	// FellBack: a usage limit under OnLimitFallback switched the rest of
	// the run to the fallback agent; every agent starts on it from then.
	FellBack bool `json:"fell_back,omitempty"`
}

// FallBack switches the run to the fallback agent at usage limit l under
// policy p and says whether the job that met it goes on at once (on the
// fallback) rather than wait: the first usage limit the run's own agent
// meets, and any an agent started before the switch still meets. A limit
// the fallback meets too is waited for.
func (ws *Waits) FallBack(p OnLimit, l Limit) bool {
	if p != OnLimitFallback || l.Kind != LimitUsage || l.Fallback {
		return false
	}
	ws.FellBack = true
	return true
}

// FallbackNote is what a run says when it goes on with the fallback agent
// at usage limit l.
func FallbackNote(l Limit) string {
	return "the provider's " + l.Describe() + ": the rest of the run goes on with the fallback agent (models.fallback), as limits.on_limit fallback says"
}

// Meet starts, or lengthens, the wait for limit l that job's agent met at
// now, and says whether its end moved (a new timer is needed then).
func (ws *Waits) Meet(now time.Time, job string, l Limit) bool {
	until, guessed := l.Reset, false
	switch {
	case l.Kind != LimitUsage:
		ws.Backoffs++
		until = now.Add(Backoff(job, ws.Backoffs))
	case until.IsZero():
		until, guessed = now.Add(UsageProbe), true
	case !until.After(now):
		// The reset it said has passed by the time it is read: a short
		// wait, as for a rate limit, and the next turn finds out.
		until = now.Add(BackoffBase)
	}
	if w := ws.Wait; w != nil && !until.After(w.Until) {
		w.Job, w.Text = job, l.Text
		return false // already waiting as long
	}
	since := now
	if ws.Wait != nil {
		since = ws.Wait.Since
	}
	ws.Wait = &LimitWait{Kind: l.Kind, Until: until, Since: since, Job: job, Text: l.Text, Guessed: guessed}
	return true
}

// Over ends the wait once its time has come, and returns it.
func (ws *Waits) Over(now time.Time) (*LimitWait, bool) {
	w := ws.Wait
	if w == nil || now.Before(w.Until) {
		return nil, false
	}
	ws.Wait = nil
	return w, true
}

// ResumeNow ends the wait at once, as a human asked with text ("resume-now"
// or "resume"), who is by; it returns what to say. The caller then ends it
// with Over.
func (ws *Waits) ResumeNow(now time.Time, text, by string) (string, error) {
	w := ws.Wait
	if w == nil {
		return "", fmt.Errorf("the run is not waiting for the provider: there is nothing to resume")
	}
	if t := strings.ToLower(strings.TrimSpace(text)); t != "resume-now" && t != "resume" {
		return "", fmt.Errorf("the answer %q: answer resume-now to go on now, or let the run go on by itself at %s", text, w.Until.UTC().Format("15:04 MST"))
	}
	note := fmt.Sprintf("%s asked to go on now, instead of waiting until %s for %s", by, w.Until.UTC().Format("15:04:05 MST"), w.Kind.Awaited())
	w.Until = now
	return strings.TrimSpace(note), nil
}

// Clone copies ws, so that the copy shares nothing with it.
func (ws Waits) Clone() Waits {
	if ws.Wait != nil {
		w := *ws.Wait
		ws.Wait = &w
	}
	return ws
}

// Progress ends a series of backoffs: the provider answers again.
func (ws *Waits) Progress() { ws.Backoffs = 0 }

// Note says what the run waits for, as of now.
func (w *LimitWait) Note(now time.Time) string {
	at := w.Until.UTC().Format("15:04:05 MST")
	if w.Guessed {
		return fmt.Sprintf("waiting for %s (it said no time: trying again at %s, in %s); no agent starts meanwhile, and no retry is spent", w.Kind.Awaited(), at, w.Until.Sub(now).Round(time.Second))
	}
	return fmt.Sprintf("waiting for %s at %s (in %s); no agent starts meanwhile, and no retry is spent", w.Kind.Awaited(), at, w.Until.Sub(now).Round(time.Second))
}

// Ended says a wait is over, at now.
func (w *LimitWait) Ended(now time.Time) string {
	return fmt.Sprintf("the wait for the provider's %s is over after %s: going on", Limit{Kind: w.Kind}.Describe(), now.Sub(w.Since).Round(time.Second))
}

// Backoff is the n-th wait in a row for a rate limit or an overload met by
// job's agent.
func Backoff(job string, n int) time.Duration {
	d := BackoffBase
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	d = min(d, BackoffMax)
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", job, n)
	jitter := float64(h.Sum32()%1000)/1000*0.5 - 0.25 // -25% .. +25%
	return d + time.Duration(float64(d)*jitter).Round(time.Second)
}

// Describe names a limit in words, with what the CLI said.
func (l Limit) Describe() string {
	what := map[LimitKind]string{LimitUsage: "usage limit", LimitRate: "rate limit", LimitOverload: "overload", LimitAuth: "refusal of the login"}[l.Kind]
	if what == "" {
		what = string(l.Kind) + " limit"
	}
	if l.Text != "" {
		what += " (" + l.Text + ")"
	}
	return what
}
