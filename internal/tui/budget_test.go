package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
	"github.com/hivectl/hive/internal/work"
)

// The header shows the spend against the budget, a warning from 80 % and
// an error at the ceiling, and fits 80 columns.
func TestHeaderBudget(t *testing.T) {
	if tuikit.StError.Render("x") == tuikit.StAction.Render("x") || tuikit.StAction.Render("x") == "x" {
		t.Fatal("the warning and error styles do not differ: the test could not tell them apart")
	}
	cases := []struct {
		name   string
		budget phase.Budget
		rung   int
		want   string // the spend part, unstyled
		style  func(...string) string
	}{
		{"none", phase.Budget{}, 0, "42.8k tok · $0.28", nil},
		{"low", phase.Budget{Ceilings: work.Ceilings{USD: 5}}, 0, "$0.28/$5.00", func(s ...string) string { return s[0] }},
		{"warn", phase.Budget{Ceilings: work.Ceilings{USD: 0.30}}, 1, "$0.28/$0.30", tuikit.StAction.Render},
		{"over", phase.Budget{Ceilings: work.Ceilings{USD: 0.25}}, 1, "$0.28/$0.25", tuikit.StError.Render},
		{"tokens", phase.Budget{Ceilings: work.Ceilings{Tokens: 50_000}}, 0, "42.8k/50k tok", tuikit.StAction.Render},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap := demoSnapshot()
			snap.Budget, snap.Rung = c.budget, c.rung
			for _, w := range []int{80, 120} {
				m, _ := screen(t, New(Options{Now: at(75), Title: "execute-phase", Dir: "/home/ada/src/shelf"}), w, 24, SnapshotMsg{Snap: snap})
				lines := m.header(w)
				raw := strings.Join(lines, "\n")
				plain := ansi.Strip(raw)
				if !strings.Contains(plain, c.want) {
					t.Errorf("at %d columns the header lacks %q:\n%s", w, c.want, plain)
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Errorf("at %d columns header line %d is %d wide: %q", w, i+1, n, ansi.Strip(l))
					}
				}
				if c.style != nil && !strings.Contains(raw, c.style(c.want)) {
					t.Errorf("at %d columns %q is not styled as it should be: %q", w, c.want, raw)
				}
				if c.name == "low" && (strings.Contains(raw, tuikit.StAction.Render(c.want)) || strings.Contains(raw, tuikit.StError.Render(c.want))) {
					t.Errorf("at %d columns a spend well under the budget is styled as a warning: %q", w, raw)
				}
				if got := strings.Contains(plain, "cheaper models"); got != (c.rung > 0) {
					t.Errorf("at %d columns: cheaper models shown %v, want %v:\n%s", w, got, c.rung > 0, plain)
				}
			}
		})
	}
}

// The header's spend is the run's: the verifier's counts too.
func TestHeaderSpendIsTheRuns(t *testing.T) {
	snap := demoSnapshot()
	snap.Spent = snap.Spent.Plus(work.Spend{InputTokens: 7000, OutputTokens: 200, CostUSD: 0.02})
	m, _ := screen(t, New(Options{Now: at(75)}), 120, 24, SnapshotMsg{Snap: snap})
	if h := ansi.Strip(strings.Join(m.header(120), " ")); !strings.Contains(h, "50.0k tok · $0.30") {
		t.Errorf("the header does not count the verifier's spend: %s", h)
	}
}

func TestBudgetText(t *testing.T) {
	spent := work.Spend{InputTokens: 1_000_000, CacheReadTokens: 150_000, OutputTokens: 50_000, CostUSD: 3.41}
	cases := []struct {
		budget phase.Budget
		rung   int
		want   string
	}{
		{phase.Budget{}, 0, ""},
		{phase.Budget{Ceilings: work.Ceilings{USD: 5}}, 0, "$3.41 of $5.00 (68%)"},
		{phase.Budget{Ceilings: work.Ceilings{USD: 4}}, 1, "$3.41 of $4.00 (85%), models one rung down since 80%"},
		{phase.Budget{Ceilings: work.Ceilings{Tokens: 2_000_000}}, 0, "1.2M of 2M tokens (60%)"},
		{phase.Budget{Ceilings: work.Ceilings{USD: 5, Tokens: 2_000_000}, PlanUSD: 1}, 0, "$3.41 of $5.00 (68%), 1.2M of 2M tokens (60%), $1.00 a plan"},
	}
	for _, c := range cases {
		s := phase.Snapshot{Budget: c.budget, Spent: spent, Rung: c.rung}
		if got := BudgetText(s); got != c.want {
			t.Errorf("BudgetText(%+v, rung %d) = %q, want %q", c.budget, c.rung, got, c.want)
		}
	}
}

func TestDowngrades(t *testing.T) {
	s := budgetSnapshot()
	if got, want := Downgrades(s), "every agent started one rung down since 80% of the budget; 1 of 6 plans on a cheaper model (01-04)"; got != want {
		t.Errorf("Downgrades = %q, want %q", got, want)
	}
	if got := Downgrades(demoSnapshot()); got != "" {
		t.Errorf("Downgrades of a run without a budget = %q, want nothing", got)
	}
}

// The budget checkpoint is the run's, not a plan's: no plan or executor
// lines, and its action says the answers.
func TestQueueTextBudget(t *testing.T) {
	s := budgetSnapshot()
	text := QueueText(s.Queue, s.Plans)
	for _, want := range []string{"### 1 of 1: Budget Checkpoint — the whole run", "budget reached: $0.28 of $0.25 spent", "→ YOUR ACTION: Type raise (half as much again), raise AMOUNT (the new ceiling) or stop"} {
		if !strings.Contains(text, want) {
			t.Errorf("the queue lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "executor-budget") || strings.Contains(text, "Plan budget") {
		t.Errorf("the budget checkpoint reads as a plan's:\n%s", text)
	}
	if BudgetOpen(s) == nil || BudgetOpen(demoSnapshot()) != nil {
		t.Error("BudgetOpen does not find the budget checkpoint, or finds one where there is none")
	}
}

func TestLimitText(t *testing.T) {
	now := time.Date(2026, 12, 2, 11, 47, 0, 0, time.Local)
	for _, tt := range []struct {
		w    work.LimitWait
		want string
	}{
		{work.LimitWait{Kind: work.LimitUsage, Until: now.Add(2*time.Hour + 13*time.Minute)}, "waiting for the usage limit's reset at 14:00 (in 2h13m)"},
		{work.LimitWait{Kind: work.LimitUsage, Until: now.Add(2 * time.Hour)}, "waiting for the usage limit's reset at 13:47 (in 2h)"},
		{work.LimitWait{Kind: work.LimitRate, Until: now.Add(45 * time.Second)}, "waiting for the rate limit to pass at 11:47 (in 45s)"},
		{work.LimitWait{Kind: work.LimitUsage, Until: now.Add(15 * time.Minute), Guessed: true}, "waiting for the usage limit's reset (not said when: trying again at 12:02)"},
		{work.LimitWait{Kind: work.LimitOverload, Until: now.Add(-time.Second)}, "waited for the provider's overload to pass: going on"},
	} {
		if got := LimitText(&tt.w, now); got != tt.want {
			t.Errorf("LimitText(%+v) = %q, want %q", tt.w, got, tt.want)
		}
	}
}
