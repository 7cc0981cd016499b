package budgetbench

import (
	"reflect"
	"testing"

	"github.com/hivectl/hive/internal/bench/report"
)

// TestBudgetHeldToOneTurn: with concurrent agents, waves, model ladders,
// dollar and token ceilings, raises and very costly turns, team-mode and
// standalone checkpoints, worktrees with merge conflicts and their
// resolvers, plan ceilings and the phase verifier (the bench's full mix),
// the engine never lets a run spend more than the turns it cannot stop
// (see budgetResult).
func TestBudgetHeldToOneTurn(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		s, err := budgetAdherence(200, seed, fullMix)
		if err != nil {
			t.Fatal(err)
		}
		if s.Overspent != 0 {
			t.Errorf("seed %d: %d of %d runs overspent by more than one turn; %s", seed, s.Overspent, s.Runs, s.FirstOver)
		}
		// The runs must reach the cases that matter, or zero proves nothing.
		if s.Stopped < s.Runs/4 || s.Raised == 0 || s.Downgraded == 0 {
			t.Errorf("seed %d: %d runs stopped at a ceiling, %d raised, %d downgraded: the random runs miss the budget's cases", seed, s.Stopped, s.Raised, s.Downgraded)
		}
		checkResults(t, s)
	}
}

// TestBudgetAdherence runs the bench's own mix: the figures are the same
// for a seed, and each run's spend is within its ceiling and what it was
// allowed past it unless the run is reported overspent.
func TestBudgetAdherence(t *testing.T) {
	a, err := budgetAdherence(60, 1, fullMix)
	if err != nil {
		t.Fatal(err)
	}
	b, err := budgetAdherence(60, 1, fullMix)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two measures of the same seed differ")
	}
	if a.Utilisation <= 0 || a.Utilisation > 2 {
		t.Errorf("mean utilisation %.3f", a.Utilisation)
	}
	if a.Downgraded == 0 || a.Downgraded == a.Runs {
		t.Errorf("%d of %d runs downgraded", a.Downgraded, a.Runs)
	}
	checkResults(t, a)
	rows := Rows(t.Context(), report.Options{Seed: 1})
	if len(rows) != 3 || rows[0].Target != "0" || rows[0].Status != report.Judge(rows[0].Value == 0) {
		t.Errorf("rows %+v", rows)
	}
}

// TestBudgetMeasureCatchesOverspend: agents that ignore the engine's stops
// (a broken runner) overspend, and the measure says so.
func TestBudgetMeasureCatchesOverspend(t *testing.T) {
	s, err := budgetAdherence(60, 1, budgetMix{deafAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Overspent < s.Stopped/4 || s.Overspent == 0 {
		t.Errorf("deaf agents: %d of %d runs overspent (%d reached a ceiling)", s.Overspent, s.Runs, s.Stopped)
	}
}

// checkResults checks what must hold of every run: it finished, spent
// something unless the budget held it from the start, and stayed within
// its ceiling plus its allowance unless it is reported overspent.
func checkResults(t *testing.T, s budgetSummary) {
	t.Helper()
	if len(s.Results) != s.Runs {
		t.Fatalf("%d results of %d runs", len(s.Results), s.Runs)
	}
	for i, r := range s.Results {
		if r.Outcome == "" {
			t.Errorf("run %d did not finish", i)
		}
		if r.SpentUSD < 0 || (r.SpentUSD == 0 && r.Stops == 0) {
			t.Errorf("run %d spent $%.2f and never stopped at the budget", i, r.SpentUSD)
		}
		if r.Ceiling <= 0 && r.Tokens <= 0 {
			t.Errorf("run %d has no ceiling", i)
		}
		if r.OverRun {
			continue
		}
		if r.Ceiling > 0 && r.SpentUSD > r.Ceiling+r.AllowUSD+1e-9 {
			t.Errorf("run %d spent $%.4f of $%.4f, allowed $%.4f more, and is not reported", i, r.SpentUSD, r.Ceiling, r.AllowUSD)
		}
		if r.Tokens > 0 && r.SpentTokens > r.Tokens+r.AllowTokens {
			t.Errorf("run %d spent %d of %d tokens, allowed %d more, and is not reported", i, r.SpentTokens, r.Tokens, r.AllowTokens)
		}
		if r.Utilisation > 1 && r.AllowUSD == 0 && r.AllowTokens == 0 {
			t.Errorf("run %d used %.2f of its budget with nothing allowed past it", i, r.Utilisation)
		}
	}
}
