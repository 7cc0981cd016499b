package work

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestReadBudgetAnswer(t *testing.T) {
	for _, tt := range []struct {
		text   string
		limit  float64
		stop   bool
		factor float64
		err    string
	}{
		{"stop", 5, true, 0, ""},
		{" Abort ", 5, true, 0, ""},
		{"raise", 5, false, 1.5, ""},
		{"raise 8", 5, false, 1.6, ""},
		{"$10", 5, false, 2, ""},
		{"3,000,000", 2_000_000, false, 1.5, ""},
		{"raise lots", 5, false, 0, "give raise, raise AMOUNT"},
		{"raise -1", 5, false, 0, "give raise, raise AMOUNT"},
		{"more please", 5, false, 0, "give raise, raise AMOUNT or stop"},
	} {
		stop, factor, err := ReadBudgetAnswer(tt.text, tt.limit)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: err %v, want one saying %q", tt.text, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.text, err)
		case stop != tt.stop || math.Abs(factor-tt.factor) > 1e-9:
			t.Errorf("%q: stop %v factor %v, want %v %v", tt.text, stop, factor, tt.stop, tt.factor)
		}
	}
}

func TestCeilings(t *testing.T) {
	c := Ceilings{USD: 5, Tokens: 1000}
	spent := Spend{InputTokens: 600, OutputTokens: 200, CostUSD: 3}
	if what, over := c.Reached(spent); over {
		t.Fatalf("reached at %+v: %s", spent, what)
	}
	if s := c.Share(spent); s != 0.8 {
		t.Errorf("share %v, want 0.8 (tokens, the larger)", s)
	}
	spent = spent.Plus(Spend{CacheReadTokens: 200})
	if what, over := c.Reached(spent); !over || what != "1000 of 1000 tokens spent" {
		t.Errorf("reached %v %q", over, what)
	}
	if what, over := c.Reached(Spend{CostUSD: 5}); !over || what != "$5.00 of $5.00 spent" {
		t.Errorf("reached %v %q", over, what)
	}
	if r := c.Raised(1.5); r != (Ceilings{USD: 7.5, Tokens: 1500}) || r.String() != "$7.50 and 1500 tokens" {
		t.Errorf("raised %+v %q", r, r.String())
	}
	if (Ceilings{}).Limited() || (Ceilings{}).String() != "" || (Ceilings{}).Share(spent) != 0 {
		t.Error("no ceiling is limited, said, or shared")
	}
	if d := spent.Minus(Spend{InputTokens: 600, CostUSD: 1}); d != (Spend{OutputTokens: 200, CacheReadTokens: 200, CostUSD: 2}) {
		t.Errorf("minus %+v", d)
	}
}

// The machines' journals and Temporal histories hold these types: their
// JSON names are a format.
func TestJSONNames(t *testing.T) {
	b, _ := json.Marshal(struct {
		Ceilings
		S Spend  `json:"s"`
		R Report `json:"r"`
	}{Ceilings{USD: 1, Tokens: 2}, Spend{1, 2, 3, 4, 5, 6}, Report{Status: ReportComplete, Decisions: []Decision{{"d", "r"}}, CanProceedWithDefault: true}})
	want := `{"usd":1,"tokens":2,"s":{"input_tokens":1,"output_tokens":2,"cache_read_tokens":3,"cache_write_tokens":4,"cost_usd":5,"cli_cost_usd":6},` +
		`"r":{"status":"complete","decisions":[{"decision":"d","rationale":"r"}],"can_proceed_with_default":true}}`
	if string(b) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", b, want)
	}
}

func TestCallGuard(t *testing.T) {
	var g CallGuard
	cfg := LoopGuard{}
	var tells, stops []string
	for range 5 {
		tell, stop := g.Call(cfg, "Bash", "go test ./...", "report blocked")
		tells, stops = append(tells, tell), append(stops, stop)
	}
	if tells[2] == "" || !strings.Contains(tells[2], "same call 3 times in a row") || stops[3] != "" || !strings.Contains(stops[4], "same call 5 times in a row") {
		t.Errorf("repeats: tells %q stops %q", tells, stops)
	}
	// A cycle of two calls: told when it has come round three times.
	g = CallGuard{}
	var told string
	for i := range 6 {
		tool := []string{"Read", "Edit"}[i%2]
		if tell, _ := g.Call(cfg, tool, "a.go", "report blocked"); tell != "" {
			told = tell
		}
	}
	if !strings.Contains(told, "cycle of calls (Read") {
		t.Errorf("cycle not told: %q", told)
	}
	c := g.Clone()
	c.Recent[0] = "changed"
	if g.Recent[0] == "changed" {
		t.Error("a clone shares its calls")
	}
}

func TestTurnsShort(t *testing.T) {
	var turns Turns
	if why, short := turns.Short(10, 0, 0, "an estimate"); short {
		t.Fatalf("short with nothing known: %s", why)
	}
	// Before any turn ended the estimate stands in.
	turns.Started("a", 1)
	if why, short := turns.Short(10, 0, 6, "an estimate"); !short || !strings.Contains(why, "another turn may cost $6.00 (an estimate)") {
		t.Errorf("estimate: %v %q", short, why)
	}
	turns.Spent("a", 1, 3, true) // a's turn ends at $3: the largest
	turns.Started("b", 1)
	turns.Started("c", 1)
	turns.Spent("c", 1, 1, false) // c's turn has reported $1 so far
	// $10 - $3 spent = $7 left; b may take $3 more, c $2 more: $2 < $3.
	why, short := turns.Short(10, 3, 6, "an estimate")
	if !short || why != "$3.00 of $10.00 spent, 2 turn(s) in flight; another turn may cost $3.00 (the largest turn so far)" {
		t.Errorf("in flight: %v %q", short, why)
	}
	turns.Gone("b", 1)
	if _, short := turns.Short(10, 3, 6, "an estimate"); short {
		t.Error("short after b's session ended")
	}
	// Exported and restored, the same.
	largest, ended := turns.Largest()
	in := map[TurnKey]TurnLoad{}
	for _, k := range turns.InFlight() {
		in[k] = turns.Load(k)
	}
	back := Restore(largest, ended, in)
	if got := back.InFlight(); len(got) != 1 || got[0] != (TurnKey{"c", 1}) || back.Load(got[0]) != (TurnLoad{1, 1}) {
		t.Errorf("restored %v", got)
	}
	back.Ended()
	if len(back.InFlight()) != 0 {
		t.Error("turns in flight after Ended")
	}
}

func TestWaits(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	var ws Waits
	if !ws.Meet(now, "01-01", Limit{Kind: LimitUsage, Reset: now.Add(2 * time.Hour)}) || !ws.Wait.Until.Equal(now.Add(2*time.Hour)) {
		t.Fatalf("usage wait %+v", ws.Wait)
	}
	// A later limit that resets sooner changes nothing; one that resets
	// later lengthens the wait, which keeps its start.
	if ws.Meet(now.Add(time.Minute), "01-02", Limit{Kind: LimitRate}) {
		t.Error("a shorter wait moved the timer")
	}
	if !ws.Meet(now.Add(time.Minute), "01-03", Limit{Kind: LimitUsage, Reset: now.Add(3 * time.Hour)}) || !ws.Wait.Since.Equal(now) || ws.Wait.Job != "01-03" {
		t.Errorf("lengthened wait %+v", ws.Wait)
	}
	if _, over := ws.Over(now.Add(2 * time.Hour)); over {
		t.Error("over before its time")
	}
	if w, over := ws.Over(now.Add(3 * time.Hour)); !over || w == nil || ws.Wait != nil {
		t.Error("not over at its time")
	}
	// No reset said: a probe; a reset already passed: a short wait.
	ws.Meet(now, "01-01", Limit{Kind: LimitUsage})
	if w := ws.Wait; !w.Guessed || !w.Until.Equal(now.Add(UsageProbe)) {
		t.Errorf("no reset: %+v", w)
	}
	ws = Waits{}
	ws.Meet(now, "01-01", Limit{Kind: LimitUsage, Reset: now.Add(-time.Second)})
	if w := ws.Wait; w.Guessed || !w.Until.Equal(now.Add(BackoffBase)) {
		t.Errorf("passed reset: %+v", w)
	}
	// Backoffs double up to the ceiling, a quarter either way.
	for n, base := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 9: BackoffMax} {
		if d := Backoff("01-01", n); d < base*3/4 || d > base*5/4 {
			t.Errorf("backoff %d = %s, want %s give or take a quarter", n, d, base)
		}
	}
	if Backoff("01-01", 2) != Backoff("01-01", 2) {
		t.Error("a backoff is drawn anew")
	}
}

// The ladder warns once, past WarnShare with work left, and goes a rung
// down only when there is a cheaper rung; a raise below WarnShare starts
// the agents on the top rung again, one above it keeps them down.
func TestLadder(t *testing.T) {
	var l Ladder
	if _, ok := l.Warn(0.79, true, true, "roles"); ok {
		t.Error("warned below WarnShare")
	}
	if _, ok := l.Warn(0.9, false, true, "roles"); ok || l.Warned {
		t.Error("warned with no work left")
	}
	note, ok := l.Warn(0.85, true, true, "roles")
	if !ok || l.Rung != 1 || note != "budget: 85% spent with work remaining: the roles started from now on use a cheaper model" {
		t.Errorf("warning %q, %v, rung %d", note, ok, l.Rung)
	}
	if _, ok := l.Warn(0.95, true, true, "roles"); ok {
		t.Error("warned twice")
	}
	l.Raised(0.9)
	if !l.Warned || l.Rung != 1 {
		t.Errorf("raised to 90%% spent: %+v", l)
	}
	l.Raised(0.5)
	if l.Warned || l.Rung != 0 {
		t.Errorf("raised to 50%% spent: %+v", l)
	}
	var flat Ladder
	if note, ok := flat.Warn(0.8, true, false, "agents"); !ok || flat.Rung != 0 || note != "budget: 80% spent with work remaining" {
		t.Errorf("no cheaper rung: %q, rung %d", note, flat.Rung)
	}
}
