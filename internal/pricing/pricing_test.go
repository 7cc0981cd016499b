package pricing

import (
	"math"
	"slices"
	"testing"
)

func TestLookup(t *testing.T) {
	tab := Defaults()
	for _, tc := range []struct {
		model string
		want  float64 // input price
		ok    bool
	}{
		{"claude-opus-5-5", 4, true},             // its own entry
		{"claude-opus-6", 5, true},               // family
		{"claude-opus-4-1-20250805", 15, true},   // longest prefix
		{"claude-sonnet-4-5-20250929", 3, true},  // prefix
		{"Claude-Haiku-4-5", 1, true},            // case
		{"claude-3-5-haiku-20241022", 0.8, true}, // its own entry beats the family
		{"gpt-5-mini-2025-08-07", 0.25, true},    // prefix at a boundary
		{"gpt-50", 0, false},                     // not gpt-5
		{"llama-3", 0, false},                    // unknown
		{"", 0, false},
	} {
		p, ok := tab.Lookup(tc.model)
		if ok != tc.ok || p.Input != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want input %v, %v", tc.model, p, ok, tc.want, tc.ok)
		}
	}
	over := tab.With(Table{"llama-3": {Input: 0.1, Output: 0.2}, "OPUS": {Input: 99}})
	if p, ok := over.Lookup("llama-3-70b"); !ok || p.Output != 0.2 {
		t.Errorf("override: %v %v", p, ok)
	}
	if p, _ := over.Lookup("claude-opus-5-5"); p.Input != 99 {
		t.Errorf("an override of a family applies to its models: %v", p)
	}
	if p, _ := tab.Lookup("opus"); p.Input != 5 {
		t.Errorf("With must not change the table it copies: %v", p)
	}
}

func TestCost(t *testing.T) {
	u := Usage{Input: 1_000_000, Output: 100_000, CacheWrite: 200_000, CacheRead: 2_000_000}
	got, ok := Defaults().Cost("claude-sonnet-4-5", u)
	want := 3 + 1.5 + 0.75 + 0.6
	if !ok || math.Abs(got-want) > 1e-9 {
		t.Fatalf("Cost = %v, %v; want %v", got, ok, want)
	}
	if u.Total() != 3_300_000 {
		t.Errorf("Total = %d", u.Total())
	}
	if _, ok := Defaults().Cost("mystery", u); ok {
		t.Error("an unknown model has no price")
	}
}

func TestLadder(t *testing.T) {
	for _, tc := range []struct {
		cli, model string
		conf       []string
		want       []string
	}{
		{"claude", "", nil, []string{"opus", "sonnet", "haiku"}},
		{"claude", "sonnet", nil, []string{"sonnet", "haiku"}},
		{"claude", "claude-opus-4-1", nil, []string{"claude-opus-4-1", "sonnet", "haiku"}},
		{"claude", "haiku", nil, []string{"haiku"}},
		{"codex", "gpt-5-mini", nil, []string{"gpt-5-mini", "gpt-5-nano"}},
		{"claude", "my-model", nil, []string{"my-model"}},
		{"aider", "", nil, nil},
		{"aider", "gpt-4.1", nil, []string{"gpt-4.1"}},
		{"claude", "", []string{"sonnet", "haiku"}, []string{"sonnet", "haiku"}},
	} {
		if got := Ladder(tc.cli, tc.model, tc.conf); !slices.Equal(got, tc.want) {
			t.Errorf("Ladder(%s, %q, %v) = %v; want %v", tc.cli, tc.model, tc.conf, got, tc.want)
		}
	}
}

func TestEstimate(t *testing.T) {
	est := Defaults().Estimate([]string{"opus", "sonnet", "unknown"}, TaskUsage)
	if !(est[0] > est[1] && est[1] > 0) {
		t.Fatalf("estimates must fall down the ladder: %v", est)
	}
	if est[2] != est[0] {
		t.Errorf("an unknown rung is estimated at the first known price: %v", est)
	}
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int64{
		"claude-opus-5-5": 1_000_000, "claude-haiku-5-5": 200_000, "claude-3-5-sonnet-latest": 200_000,
		"gpt-5-codex": 400_000, "gpt-50": 0, "": 0, "llama3": 0,
	} {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}
