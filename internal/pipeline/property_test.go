package pipeline

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hivectl/hive/internal/engine"
)

// A random walk through many runs: agents report every status, crash,
// resume mid-way; hive's checks pass or fail; the human answers at random.
// Half the runs have a budget (the run's, a role's) and costly turns. No
// plausible event is refused, one job at most works or waits at a time,
// a checkpoint is open exactly when a job waits at it, no agent or phase
// starts once a ceiling it answers to is spent, and each gets a positive
// allotment; every run ends or stays at a checkpoint within the walk (no
// loop without a human).
func TestRandomWalks(t *testing.T) {
	statuses := []string{engine.ReportComplete, engine.ReportComplete, engine.ReportPartial, engine.ReportBlocked,
		engine.ReportChallenge, engine.ReportNeedsInput, ""}
	budgetStops, raised := 0, 0
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 0xB1E))
		m := New()
		wf := Full
		if rng.IntN(3) == 0 {
			wf = Quick
		}
		var budget Budget
		if rng.IntN(2) == 0 {
			budget.USD = 1 + 4*rng.Float64()
			if rng.IntN(2) == 0 {
				budget.Roles = map[string]float64{Roles[rng.IntN(len(Roles))]: rng.Float64()}
			}
			if rng.IntN(2) == 0 {
				budget.Estimates = map[string][]float64{RoleTester: {0.5, 0.1}, RoleReviewer: {0.3, 0.05}}
			}
		}
		if _, err := m.Step(Event{Type: EvStarted, Spec: &Spec{Objective: "o", Workflow: wf, AutoAnswer: rng.IntN(2) == 0, Budget: budget}}); err != nil {
			t.Fatal(err)
		}
		sessions := map[string]float64{} // job/attempt → its session's cost so far
		sinceHuman := 0
		for step := 0; step < 400 && !m.Snapshot().Finished; step++ {
			s := m.Snapshot()
			var ev Event
			var busy *Job
			for i := range s.Jobs {
				if st := s.Jobs[i].State; st == Running || st == Checking || st == Waiting {
					if busy != nil {
						t.Fatalf("seed %d: %s and %s both busy", seed, busy.ID, s.Jobs[i].ID)
					}
					busy = &s.Jobs[i]
				}
			}
			if busy == nil {
				t.Fatalf("seed %d: nothing works and the run has not ended: %+v", seed, s)
			}
			if (s.Open != nil) != (busy.State == Waiting) {
				t.Fatalf("seed %d: open checkpoint %v while %s is %s", seed, s.Open, busy.ID, busy.State)
			}
			sinceHuman++
			switch {
			case rng.IntN(25) == 0:
				ev = Event{Type: EvResumed}
			case s.Open != nil:
				sinceHuman = 0
				text := "a choice"
				if len(s.Open.Options) > 0 && s.Open.Kind != KindNeedsInput {
					text = s.Open.Options[rng.IntN(len(s.Open.Options))]
				}
				if s.Open.Kind == KindBudget && text == AnswerRaise {
					raised++
					text = fmt.Sprintf("raise %.4f", s.Open.Spent+0.5+rng.Float64())
				}
				ev = Event{Type: EvAnswer, Checkpoint: s.Open.ID, Text: text}
			case busy.State == Checking && busy.Role == RoleArchitect:
				ev = Event{Type: EvLinted}
				if rng.IntN(3) == 0 {
					ev.Errors = []string{"01-01-PLAN.md:1: bad"}
				}
			case busy.State == Checking:
				ev = Event{Type: EvTestsRan, Tests: &Tests{Command: "go test", ExitCode: rng.IntN(2)}}
			case busy.Phase:
				ev = Event{Type: EvPhaseDone, OK: rng.IntN(4) != 0, Spend: engine.Spend{CostUSD: rng.Float64()}}
				if budget.USD > 0 && rng.IntN(4) == 0 {
					ev.OK, ev.OverBudget = false, true
				}
				if rng.IntN(4) == 0 {
					ev.Report = &engine.Report{Status: engine.ReportChallenge, ChallengedAgent: RoleArchitect, Issue: "x"}
				}
			default:
				ev = Event{Job: busy.ID, Attempt: busy.Attempts}
				switch rng.IntN(4) {
				case 3:
					key := fmt.Sprintf("%s/%d", busy.ID, busy.Attempts)
					sessions[key] += 0.3 * rng.Float64()
					ev.Type, ev.Spend = EvUsage, engine.Spend{InputTokens: 100, CostUSD: sessions[key]}
				case 0:
					ev.Type, ev.PID = EvAgentStarted, 100+step
				case 1:
					ev.Type = EvReport
					r := &engine.Report{Status: statuses[rng.IntN(len(statuses))], Issue: "i", Blocker: "b"}
					if rng.IntN(2) == 0 {
						r.ChallengedAgent = Roles[rng.IntN(len(Roles))]
					}
					if rng.IntN(2) == 0 {
						r.Options, r.DefaultChoice, r.CanProceedWithDefault = []string{"a", "b"}, "a", rng.IntN(2) == 0
					}
					ev.Report = r
				default:
					ev.Type, ev.ExitCode = EvAgentExited, rng.IntN(2)
				}
			}
			cmds, err := m.Step(ev)
			if err != nil {
				t.Fatalf("seed %d step %d: %s refused: %v", seed, step, ev.Type, err)
			}
			after := m.Snapshot()
			for _, c := range cmds {
				if c.Type == CmdCheckpoint && c.Checkpoint.Kind == KindBudget {
					budgetStops++
				}
				if c.Type != CmdStartAgent && c.Type != CmdRunPhase {
					continue
				}
				b := after.Budget
				if b.USD > 0 && (c.BudgetUSD <= 0 || after.Spent.CostUSD >= b.USD) {
					t.Fatalf("seed %d step %d: %s started with $%.2f of $%.2f spent, allotment $%.2f", seed, step, c.Job, after.Spent.CostUSD, b.USD, c.BudgetUSD)
				}
				role := c.Role
				if lim := b.Roles[role]; lim > 0 {
					spent := 0.0
					for _, j := range after.Jobs {
						if j.Role == role {
							spent += j.Spend.CostUSD
						}
					}
					if spent >= lim || c.BudgetUSD <= 0 || c.BudgetUSD > lim-spent+1e-9 {
						t.Fatalf("seed %d step %d: %s started with $%.2f of its role's $%.2f spent, allotment $%.2f", seed, step, c.Job, spent, lim, c.BudgetUSD)
					}
				}
			}
			if sinceHuman > 150 {
				t.Fatalf("seed %d: 150 events without a human and no end: a loop? %+v", seed, m.Snapshot())
			}
		}
	}
	if budgetStops < 100 || raised < 50 {
		t.Errorf("%d budget stops, %d raises: the walks hardly tried the budget", budgetStops, raised)
	}
	t.Logf("%d budget stops, %d raises", budgetStops, raised)
}
