package pipeline

import (
	"math/rand/v2"
	"testing"

	"github.com/hivectl/hive/internal/engine"
)

// A random walk through many runs: agents report every status, crash,
// resume mid-way; hive's checks pass or fail; the human answers at random.
// No plausible event is refused, one job at most works or waits at a time,
// a checkpoint is open exactly when a job waits at it, and every run ends
// or stays at a checkpoint within the walk (no loop without a human).
func TestRandomWalks(t *testing.T) {
	statuses := []string{engine.ReportComplete, engine.ReportComplete, engine.ReportPartial, engine.ReportBlocked,
		engine.ReportChallenge, engine.ReportNeedsInput, ""}
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 0xB1E))
		m := New()
		wf := Full
		if rng.IntN(3) == 0 {
			wf = Quick
		}
		if _, err := m.Step(Event{Type: EvStarted, Spec: &Spec{Objective: "o", Workflow: wf, AutoAnswer: rng.IntN(2) == 0}}); err != nil {
			t.Fatal(err)
		}
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
				ev = Event{Type: EvAnswer, Checkpoint: s.Open.ID, Text: text}
			case busy.State == Checking && busy.Role == RoleArchitect:
				ev = Event{Type: EvLinted}
				if rng.IntN(3) == 0 {
					ev.Errors = []string{"01-01-PLAN.md:1: bad"}
				}
			case busy.State == Checking:
				ev = Event{Type: EvTestsRan, Tests: &Tests{Command: "go test", ExitCode: rng.IntN(2)}}
			case busy.Phase:
				ev = Event{Type: EvPhaseDone, OK: rng.IntN(4) != 0}
				if rng.IntN(4) == 0 {
					ev.Report = &engine.Report{Status: engine.ReportChallenge, ChallengedAgent: RoleArchitect, Issue: "x"}
				}
			default:
				ev = Event{Job: busy.ID, Attempt: busy.Attempts}
				switch rng.IntN(3) {
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
			if _, err := m.Step(ev); err != nil {
				t.Fatalf("seed %d step %d: %s refused: %v", seed, step, ev.Type, err)
			}
			if sinceHuman > 150 {
				t.Fatalf("seed %d: 150 events without a human and no end: a loop? %+v", seed, m.Snapshot())
			}
		}
	}
}
