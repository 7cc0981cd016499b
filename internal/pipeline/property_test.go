package pipeline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// A random walk through many runs: agents report every status, crash,
// resume mid-way; hive's checks pass, fail or have nothing to check; the
// human answers at random.
// Half the runs have a budget (the run's, a role's) and costly turns. No
// plausible event is refused, two jobs that write never work at once, a
// checkpoint is open exactly when a job waits at one, no agent or phase
// starts once a ceiling it answers to is spent, and each gets a positive
// allotment; every run ends or stays at a checkpoint within the walk (no
// loop without a human).
func TestRandomWalks(t *testing.T) {
	statuses := []string{work.ReportComplete, work.ReportComplete, work.ReportPartial, work.ReportBlocked,
		work.ReportChallenge, work.ReportNeedsInput, ""}
	budgetStops, raised, evaluations, serialised, rounds, merged := 0, 0, 0, 0, 0, 0
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 0xB1E))
		// Whether a check had nothing to check (no tests, nothing to
		// build) is drawn apart, so that the walks' other draws stay
		// those they have always been.
		nothing := rand.New(rand.NewPCG(seed, 0x40E))
		m := New()
		all := append([]workflows.Workflow{classic, pair}, workflows.Builtins...)
		wf := all[rng.IntN(len(all))]
		facts := map[string]bool{workflows.CondHasFrontend: rng.IntN(2) == 0, workflows.CondHasTests: rng.IntN(2) == 0}
		var budget roleplan.Budget
		if rng.IntN(2) == 0 {
			budget.USD = 1 + 4*rng.Float64()
			if rng.IntN(2) == 0 {
				budget.Roles = map[string]float64{workflows.Roles[rng.IntN(len(workflows.Roles))]: rng.Float64()}
			}
			if rng.IntN(2) == 0 {
				budget.Estimates = map[string][]float64{workflows.RoleTester: {0.5, 0.1}, workflows.RoleReviewer: {0.3, 0.05}}
			}
		}
		// Half the runs follow their pull request (rules 4), drawn apart
		// as well.
		following := rand.New(rand.NewPCG(seed, 0xF011))
		spec := &roleplan.Spec{Objective: "o", Workflow: wf, AutoAnswer: rng.IntN(2) == 0, Budget: budget, Facts: facts, NoInterview: rng.IntN(2) == 0,
			Follow: following.IntN(2) == 0, Rules: roleplan.Rules}
		if rng.IntN(2) == 0 {
			spec.Routing = roleplan.Routing{Evaluate: true, Floor: 40 * rng.IntN(2), Quick: rng.IntN(2) == 0, Proven: []string{workflows.RoleReviewer, workflows.RoleDocumenter, workflows.RoleTester}}
		}
		judging := map[string]bool{} // jobs whose evaluation was ordered
		if _, err := m.Step(roleplan.Event{Type: roleplan.EvStarted, Spec: spec}); err != nil {
			t.Fatal(err)
		}
		sessions := map[string]float64{} // job/attempt → its session's cost so far
		sinceHuman := 0
		for step := 0; step < 400 && !m.Snapshot().Finished; step++ {
			s := m.Snapshot()
			var ev roleplan.Event
			var working []*roleplan.Job
			var writer *roleplan.Job
			waiting := false
			for i := range s.Jobs {
				j := &s.Jobs[i]
				switch j.State {
				case roleplan.Running, roleplan.Checking:
					working = append(working, j)
					if j.Type != "" || j.Phase || !slices.Contains(workflows.ReadOnly, j.Role) {
						if writer != nil {
							t.Fatalf("seed %d: %s and %s both write", seed, writer.ID, j.ID)
						}
						writer = j
					}
				case roleplan.Waiting:
					waiting = true
				}
			}
			if len(working) == 0 && !waiting {
				t.Fatalf("seed %d: nothing works and the run has not ended: %+v", seed, s)
			}
			if (s.Open != nil) != waiting {
				t.Fatalf("seed %d: open checkpoint %v, a job waiting: %v", seed, s.Open, waiting)
			}
			var busy *roleplan.Job
			if len(working) > 0 {
				busy = working[rng.IntN(len(working))]
			}
			sinceHuman++
			switch {
			case rng.IntN(25) == 0:
				ev = roleplan.Event{Type: roleplan.EvResumed}
			case s.Open != nil && (busy == nil || rng.IntN(2) == 0):
				sinceHuman = 0
				text := "a choice"
				if len(s.Open.Options) > 0 && s.Open.Kind != roleplan.KindNeedsInput {
					text = s.Open.Options[rng.IntN(len(s.Open.Options))]
				}
				if s.Open.Kind == roleplan.KindFindings && text == roleplan.AnswerAccept {
					text = "accept a reason"
				}
				if text == roleplan.AnswerReject {
					text = "reject more care"
				}
				if s.Open.Kind == roleplan.KindBudget && text == roleplan.AnswerRaise {
					raised++
					text = fmt.Sprintf("raise %.4f", s.Open.Spent+0.5+rng.Float64())
				}
				ev = roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: s.Open.ID, Text: text}
				if s.Open.Check(text) != nil {
					ev.Text = roleplan.AnswerQuit // continue refused while a blocker is open
				}
			case busy.Type == roleplan.StepFollow:
				ev = followEvent(following, s.Follow, step)
			case busy.State == roleplan.Checking && judging[busy.ID]:
				e := &roleplan.Evaluation{Role: busy.Role}
				if rng.IntN(2) == 0 {
					e.Checks = &confidence.Score{Points: rng.IntN(71), Max: confidence.MaxPoints}
				}
				for _, a := range roleplan.Aspects {
					e.Verdicts = append(e.Verdicts, roleplan.Verdict{Aspect: a, Verdict: []string{roleplan.VerdictOK, roleplan.VerdictOK, roleplan.VerdictWarn, roleplan.VerdictBlock, ""}[rng.IntN(5)], Notes: []string{"n"}})
				}
				if rng.IntN(2) == 0 {
					e.Spend = work.Spend{InputTokens: 3000, CostUSD: 0.02 * rng.Float64()}
				}
				ev = roleplan.Event{Type: roleplan.EvEvaluated, Job: busy.ID, Attempt: busy.Attempts, Evaluation: e}
			case busy.State == roleplan.Checking && busy.Role == workflows.RoleArchitect:
				ev = roleplan.Event{Type: roleplan.EvLinted}
				if rng.IntN(3) == 0 {
					ev.Errors = []string{"01-01-PLAN.md:1: bad"}
				}
			case busy.State == roleplan.Checking && busy.Type == workflows.StepBuild:
				ev = roleplan.Event{Type: roleplan.EvBuilt, Job: busy.ID, Attempt: busy.Attempts, Tests: &roleplan.Tests{Command: "go build", ExitCode: rng.IntN(2), None: nothing.IntN(6) == 0}}
			case busy.State == roleplan.Checking:
				ev = roleplan.Event{Type: roleplan.EvTestsRan, Job: busy.ID, Tests: &roleplan.Tests{Command: "go test", ExitCode: rng.IntN(2), None: nothing.IntN(6) == 0}}
			case busy.Phase:
				ev = roleplan.Event{Type: roleplan.EvPhaseDone, OK: rng.IntN(4) != 0, Spend: work.Spend{CostUSD: rng.Float64()}}
				if budget.USD > 0 && rng.IntN(4) == 0 {
					ev.OK, ev.OverBudget = false, true
				}
				if rng.IntN(4) == 0 {
					ev.Report = &work.Report{Status: work.ReportChallenge, ChallengedAgent: workflows.RoleArchitect, Issue: "x"}
				}
			default:
				ev = roleplan.Event{Job: busy.ID, Attempt: busy.Attempts}
				switch rng.IntN(4) {
				case 3:
					key := fmt.Sprintf("%s/%d", busy.ID, busy.Attempts)
					sessions[key] += 0.3 * rng.Float64()
					ev.Type, ev.Spend = roleplan.EvUsage, work.Spend{InputTokens: 100, CostUSD: sessions[key]}
				case 0:
					ev.Type, ev.PID = roleplan.EvAgentStarted, 100+step
				case 1:
					ev.Type = roleplan.EvReport
					r := &work.Report{Status: statuses[rng.IntN(len(statuses))], Issue: "i", Blocker: "b"}
					if rng.IntN(2) == 0 {
						r.ChallengedAgent = workflows.Roles[rng.IntN(len(workflows.Roles))]
					}
					if rng.IntN(2) == 0 {
						r.Options, r.DefaultChoice, r.CanProceedWithDefault = []string{"a", "b"}, "a", rng.IntN(2) == 0
					}
					if rng.IntN(3) == 0 {
						sev := []string{roleplan.SevBlocker, roleplan.SevHigh, roleplan.SevLow}[rng.IntN(3)]
						r.Extra = map[string]json.RawMessage{
							"issues":    json.RawMessage(fmt.Sprintf(`[{"severity":%q,"file":"a.go","line":3,"title":"t%d"}]`, sev, rng.IntN(3))),
							"questions": json.RawMessage(`[{"question":"q?","options":["x","y"],"default":"x"}]`)}
					}
					ev.Report = r
					if rng.IntN(6) == 0 {
						ev.Errors, ev.MaxAttempts = []string{"summary: missing"}, 1+rng.IntN(3)
					}
				default:
					ev.Type, ev.ExitCode = roleplan.EvAgentExited, rng.IntN(2)
				}
			}
			cmds, err := m.Step(ev)
			if err != nil {
				t.Fatalf("seed %d step %d: %s refused: %v", seed, step, ev.Type, err)
			}
			after := m.Snapshot()
			if ev.Type == roleplan.EvEvaluated {
				delete(judging, ev.Job)
				evaluations++
			}
			if f := after.Follow; f != nil && s.Follow != nil {
				rounds += len(f.Rounds) - len(s.Follow.Rounds)
				if f.PR != nil && f.PR.State == roleplan.PRMerged && s.Follow.PR.State != roleplan.PRMerged {
					merged++
				}
			}
			for _, c := range cmds {
				if c.Type == roleplan.CmdEvaluate {
					judging[c.Job] = true
				}
				if c.Type == roleplan.CmdCheckpoint && c.Checkpoint.Kind == roleplan.KindBudget {
					budgetStops++
				}
				if c.Type != roleplan.CmdStartAgent && c.Type != roleplan.CmdRunPhase {
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
			for _, c := range cmds {
				// Only an event of the job itself (its exit, its evaluation, the
				// answer to its checkpoint) or a resume may start an attempt of
				// a job at work: never two attempts at once.
				subject := cmp.Or(ev.Job, map[roleplan.EventType]string{roleplan.EvLinted: workflows.RoleArchitect, roleplan.EvTestsRan: workflows.RoleTester, roleplan.EvPhaseDone: roleplan.PhaseJob}[ev.Type])
				if c.Type != roleplan.CmdStartAgent || c.Job == subject || ev.Type == roleplan.EvResumed || (ev.Type == roleplan.EvAnswer && s.Open.Job == c.Job) {
					continue
				}
				for _, j := range s.Jobs {
					if j.ID == c.Job && (j.State == roleplan.Running || j.State == roleplan.Checking) {
						t.Fatalf("seed %d step %d: %s (%s) starts attempt %d after %s of %s", seed, step, c.Job, j.State, c.Attempt, ev.Type, ev.Job)
					}
				}
			}
			if m.serial {
				serialised++
				if len(working) > 1 && !after.Finished {
					for _, c := range cmds {
						if c.Type == roleplan.CmdStartAgent || c.Type == roleplan.CmdRunPhase {
							t.Fatalf("seed %d step %d: %s started beside %d others under the confidence floor", seed, step, c.Job, len(working))
						}
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
	if evaluations < 500 || serialised < 100 {
		t.Errorf("%d evaluations, %d steps under the floor: the walks hardly tried the routing", evaluations, serialised)
	}
	if rounds < 100 || merged < 100 {
		t.Errorf("%d rounds of pull request fixes, %d merges: the walks hardly followed a pull request", rounds, merged)
	}
	t.Logf("%d budget stops, %d raises, %d evaluations, %d steps under the floor, %d pull request rounds, %d merges", budgetStops, raised, evaluations, serialised, rounds, merged)
}

// followEvent is what a followed pull request's command found, at random:
// delivered or not; merged, closed, or open with failures and comments on
// its head or stale; a fix pushed or refused.
func followEvent(rng *rand.Rand, f *roleplan.Following, step int) roleplan.Event {
	ev := roleplan.Event{Job: roleplan.FollowJob}
	switch f.Stage {
	case roleplan.StageDeliver:
		ev.Type, ev.OK = roleplan.EvDelivered, rng.IntN(8) != 0
		if ev.OK {
			ev.PR = &roleplan.PullRequest{Number: 1, URL: "u", Branch: "b", State: roleplan.PROpen, Head: "h0"}
		}
	case roleplan.StagePush:
		ev.Type, ev.OK = roleplan.EvPushed, rng.IntN(6) != 0
		if ev.OK {
			ev.PR = &roleplan.PullRequest{Number: 1, State: roleplan.PROpen, Head: fmt.Sprintf("h%d", step)}
		}
	default:
		head := f.PR.Head
		ev.Type, ev.PR = roleplan.EvPullRequest, &roleplan.PullRequest{Number: 1, State: roleplan.PROpen, Head: head}
		switch rng.IntN(8) {
		case 0, 1:
			ev.PR.State = roleplan.PRMerged
		case 2:
			ev.PR.State = roleplan.PRClosed
		}
		for range rng.IntN(3) {
			on := head
			if rng.IntN(3) == 0 {
				on = "older"
			}
			ev.CI = append(ev.CI, roleplan.CIFailure{Workflow: fmt.Sprintf("w%d", rng.IntN(3)), Head: on, Log: "FAIL"})
		}
		for i := range rng.IntN(3) {
			th := roleplan.Thread{ID: fmt.Sprintf("t%d", i), Path: "a.go", Line: 3, Resolved: rng.IntN(4) == 0, Outdated: rng.IntN(4) == 0}
			for range 1 + rng.IntN(4) {
				th.Comments = append(th.Comments, roleplan.ThreadComment{Body: "c"})
			}
			ev.Threads = append(ev.Threads, th)
		}
	}
	return ev
}

// classic and pair are pipelinescript's Classic and Pair (which this
// package's own tests cannot import): the workflows the scripts of
// challenges and fix loops run on.
var (
	classic = workflows.Workflow{Name: "classic", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer}, {Role: workflows.RoleComb},
		{Role: workflows.RoleTester}, {Role: workflows.RoleReviewer}, {Role: workflows.RoleDocumenter}}}
	pair = workflows.Workflow{Name: "pair", Steps: []workflows.Step{{Role: workflows.RoleImplementer}, {Role: workflows.RoleTester}}}
)
