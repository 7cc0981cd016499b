package budgetbench

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
)

// budgetRuns is how many simulated runs the budget group measures. They
// take a fraction of a second together, so quick mode runs them all too.
const budgetRuns = 200

// usdPerToken turns a turn's cost on the ladder's top rung into its
// tokens: a blend of input, cache and output prices. A cheaper rung spends
// the same tokens for less money.
const usdPerToken = 4e-6

// Rows drives the real engine through budgetRuns simulated runs with
// random phases, budgets and per-turn costs, and reports how well the
// budget held: the runs that overspent by more than one turn (goal 0), the
// mean share of the budget used, and how many runs downgraded a model.
func Rows(_ context.Context, o report.Options) []report.Row {
	s, err := budgetAdherence(budgetRuns, o.Seed, fullMix)
	if err != nil {
		return []report.Row{report.ErrorRow("budget", "runs overspent by more than one turn", err)}
	}
	what := fmt.Sprintf("%d of %d runs hit a ceiling (%d raised once), largest turn $%.2f", s.Stopped, s.Runs, s.Raised, s.LargestTurn)
	over := report.Row{Group: "budget", Name: "runs overspent by more than one turn", Value: float64(s.Overspent), Unit: "runs",
		Figure: fmt.Sprintf("%d of %d", s.Overspent, s.Runs), Target: "0", Status: report.Judge(s.Overspent == 0), Note: what}
	if s.Overspent > 0 {
		over.Note = fmt.Sprintf("%d by the run's ceiling, %d by a plan's; first: %s", s.OverRun, s.OverPlan, s.FirstOver)
	}
	return []report.Row{
		over,
		{Group: "budget", Name: "mean utilisation", Value: 100 * s.Utilisation, Unit: "%",
			Figure: fmt.Sprintf("%.1f%% (lowest %.1f%%, highest %.1f%%)", 100*s.Utilisation, 100*s.MinUtil, 100*s.MaxUtil), Status: report.Info,
			Note: "spent / the ceiling as finally raised"},
		{Group: "budget", Name: "runs downgraded", Value: float64(s.Downgraded), Unit: "runs",
			Figure: fmt.Sprintf("%d of %d", s.Downgraded, s.Runs), Status: report.Info,
			Note: "an agent started below the top rung of the model ladder"},
	}
}

// budgetMix says which of the engine's features the random runs may use.
// The bench uses them all; a test leaves some out to tell which one costs
// more than a turn.
type budgetMix struct {
	checkpoints bool // plans stop at human-verify checkpoints, answered after a while
	worktrees   bool // worktree mode, where some merges conflict and a resolver agent works
	planCeiling bool // some runs set budget.plan_usd
	verifier    bool // some runs end with a verifier agent
	// deafAgents makes the agents ignore every stop: a broken runner, so
	// that a test can see the measure catch an overspend.
	deafAgents bool
}

// fullMix is every feature: what `hive bench` measures.
var fullMix = budgetMix{checkpoints: true, worktrees: true, planCeiling: true, verifier: true}

// budgetSummary is what the simulated runs add up to.
type budgetSummary struct {
	Runs        int
	Overspent   int     // runs over a ceiling by more than one turn (OverRun + OverPlan, each run once)
	OverRun     int     // of them, over the run's ceiling
	OverPlan    int     // of them, over a plan's ceiling
	FirstOver   string  // what the first overspent run did, for the report
	Utilisation float64 // mean of spent / ceiling
	MinUtil     float64
	MaxUtil     float64
	Downgraded  int     // runs in which an agent started below the top rung
	Stopped     int     // runs that reached a ceiling (the budget checkpoint opened)
	Raised      int     // runs whose budget a human raised
	LargestTurn float64 // the costliest single turn of all the runs, in dollars
	Results     []budgetResult
}

// budgetAdherence simulates runs runs from seed and sums them up. Each run
// has its own random stream, so run i is the same whatever runs counts.
func budgetAdherence(runs int, seed uint64, mix budgetMix) (budgetSummary, error) {
	s := budgetSummary{Runs: runs, MinUtil: math.Inf(1)}
	for i := 0; i < runs; i++ {
		res, err := simulateBudgetRun(seed, uint64(i), mix)
		if err != nil {
			return s, fmt.Errorf("run %d of seed %d: %w", i, seed, err)
		}
		s.Results = append(s.Results, res)
		if res.OverRun || res.OverPlan {
			s.Overspent++
			if s.FirstOver == "" {
				s.FirstOver = fmt.Sprintf("run %d: %s", i, res.Why)
			}
		}
		if res.OverRun {
			s.OverRun++
		} else if res.OverPlan {
			s.OverPlan++
		}
		s.Utilisation += res.Utilisation / float64(runs)
		s.MinUtil = min(s.MinUtil, res.Utilisation)
		s.MaxUtil = max(s.MaxUtil, res.Utilisation)
		if res.Downgraded {
			s.Downgraded++
		}
		if res.Stops > 0 {
			s.Stopped++
		}
		if res.Raised {
			s.Raised++
		}
		s.LargestTurn = max(s.LargestTurn, res.LargestTurn)
	}
	return s, nil
}

// budgetResult is one simulated run's outcome.
//
// "Overspent by more than one turn" is defined here, precisely. A turn is
// billed when it ends, whole, and the engine learns of it only then: so
// when the turn that crosses the ceiling is reported, the spend is already
// past the ceiling by part of that turn, and every other agent at work has
// a turn in flight that an interrupt can shorten but never unbill. What the
// engine can and must prevent is everything after: a further turn of any
// agent, or a new agent. So the allowance is fixed at the moment the spend
// reaches the ceiling, or the engine stops the run for its budget if that
// comes first (a plan too big for what is left): the spend then past the
// ceiling, plus the cost of each turn then in flight (at most one per live
// agent). A run is overspent when its final spend exceeds the ceiling by
// more than that. The same holds for each plan's own ceiling
// (budget.plan_usd) with the plan's agents. A raised budget is measured
// against its new ceiling, from the moment it next reaches it.
type budgetResult struct {
	Spec        phase.RunSpec
	Ceiling     float64 // dollars; 0: none
	Tokens      int64   // tokens; 0: none
	SpentUSD    float64
	SpentTokens int64
	AllowUSD    float64 // the overspend allowed past Ceiling (see above)
	AllowTokens int64
	Utilisation float64 // the larger of spent / ceiling for the ceilings set
	Downgraded  bool
	LargestTurn float64
	Stops       int  // budget checkpoints opened
	Raised      bool // a human raised the budget
	Outcome     string
	OverRun     bool // past the run's ceiling by more than one turn
	OverPlan    bool // past a plan's ceiling by more than one turn
	Why         string
}

// Simulated agents' and the human's pace, on the virtual clock.
const (
	simTurnMin    = 10 * time.Second // a turn lasts 10–90 s
	simTurnSpread = 80 * time.Second
	simInterrupt  = time.Second     // an interrupted turn ends this soon
	simCheckMax   = 3 * time.Second // a spot-check, merge or verification takes up to this
	simHumanMin   = 5 * time.Second // a human answers in 5 s to 3 min
	simHumanMax   = 3 * time.Minute
	simMaxSteps   = 200_000 // a run that takes more events than this is stuck
)

// simPlan is the truth about one plan that the simulated disk and agents
// know and the engine does not: what its tasks really cost.
type simPlan struct {
	spec     phase.PlanSpec
	factor   float64 // its tasks' true cost against the estimate
	done     int     // tasks committed
	stop     int     // its checkpoint task (0: none)
	cpOpen   bool    // its checkpoint was raised and waits
	cpDone   bool    // and was answered
	conflict bool    // its merge conflicts once
	billed   float64 // every turn of its agents, resolvers included
	crossed  bool    // billed reached the plan's ceiling
	allow    float64 // the overspend allowed past it then
	agents   []*simAgent
}

// simAgent is one agent process of the simulation.
type simAgent struct {
	plan      string
	role      string
	attempt   int
	rung      int
	live      bool     // started and not yet exited
	stopping  bool     // asked to end: it starts no new turn
	idle      bool     // waits at a team-mode checkpoint for the answer
	gen       int      // its turn's generation: a turn rescheduled by an interrupt makes the old end stale
	turn      *simTurn // the turn under way; nil between turns
	task      int      // the task it works on
	turnsLeft int      // turns of that task still to take
	perTurn   float64  // what a turn of that task costs, on average, on its rung
	turns     int      // turns taken (a resolver and the verifier take few)
}

// simTurn is a turn in flight: its cost is fixed when it starts and billed
// when it ends.
type simTurn struct {
	usd    float64
	tokens int64
	ends   bool // it finishes the agent's task
}

// Kinds of simulated occurrences.
const (
	simTurnEnd = iota // an agent's turn ends
	simExit           // an agent's process ends
	simEvent          // an engine event due (a spot-check's result, a merge's, a wake)
	simAnswer         // a human answers a checkpoint
)

type simItem struct {
	at    time.Time
	seq   int
	kind  int
	agent *simAgent
	gen   int
	ev    phase.Event
	cp    *phase.Checkpoint
}

type simQueue []simItem

func (h simQueue) Len() int { return len(h) }
func (h simQueue) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h simQueue) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *simQueue) Push(x any)   { *h = append(*h, x.(simItem)) }
func (h *simQueue) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// budgetSim is one simulated run: the engine, the agents, the disk and the
// human, on a virtual clock.
type budgetSim struct {
	r        *rand.Rand
	e        *engine.Engine
	mix      budgetMix
	spec     phase.RunSpec
	plans    map[string]*simPlan
	order    []*simPlan  // spec order, for deterministic sums
	agents   []*simAgent // every agent started, in start order
	verifier *simAgent
	now      time.Time
	q        simQueue
	seq      int
	cmds     []phase.Command
	steps    int
	pids     int
	calls    int
	finished bool
	outcome  string
	raise    bool    // the human raises the first budget checkpoint once
	top      float64 // a task's estimated cost on the ladder's top rung

	ceiling     float64
	tokenCeil   int64
	billedUSD   float64
	billedTok   int64
	anchoredUSD bool // allowUSD is fixed
	anchoredTok bool
	allowUSD    float64
	allowTok    int64
	largestTurn float64
	downgraded  bool
	stops       int
	raised      bool
	errs        []string // what the simulation saw that it should not have
}

// simulateBudgetRun runs the run-th random phase of seed to its end.
func simulateBudgetRun(seed, run uint64, mix budgetMix) (budgetResult, error) {
	r := rand.New(rand.NewPCG(seed, 0xb0d6e7+run))
	s := &budgetSim{r: r, e: engine.New(), plans: map[string]*simPlan{}, mix: mix,
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.spec = s.randomPhase()
	s.ceiling, s.tokenCeil = s.spec.Budget.USD, s.spec.Budget.Tokens
	s.raise = r.Float64() < 0.3
	if err := s.step(phase.Event{Type: phase.EvRunStarted, Spec: &s.spec, Version: phase.Version, Attended: true}); err != nil {
		return budgetResult{}, err
	}
	if err := s.drain(); err != nil {
		return budgetResult{}, err
	}
	// After the run finishes the agents that were stopped still end their
	// turns and are billed: the loop runs until nothing is left.
	for s.q.Len() > 0 {
		if s.steps > simMaxSteps {
			return budgetResult{}, fmt.Errorf("stuck after %d events", s.steps)
		}
		it := heap.Pop(&s.q).(simItem)
		s.now = it.at
		var err error
		switch it.kind {
		case simTurnEnd:
			if it.gen == it.agent.gen && it.agent.turn != nil {
				err = s.turnEnd(it.agent)
			}
		case simExit:
			err = s.exit(it.agent)
		case simEvent:
			err = s.step(it.ev)
		case simAnswer:
			err = s.answer(it.cp)
		}
		if err == nil {
			err = s.drain()
		}
		if err != nil {
			return budgetResult{}, err
		}
	}
	if !s.finished {
		return budgetResult{}, fmt.Errorf("the run did not finish: %d of %d plans complete", s.e.Snapshot().Count(phase.Complete), len(s.spec.Plans))
	}
	if len(s.errs) > 0 {
		return budgetResult{}, fmt.Errorf("the simulation went wrong: %s", s.errs[0])
	}
	return s.result(), nil
}

// randomPhase makes a phase of 2–8 plans in up to three waves, each plan
// depending on up to two of the earlier waves' plans, with a random budget
// around its estimated cost, and the engine's options drawn at random.
func (s *budgetSim) randomPhase() phase.RunSpec {
	r := s.r
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 1 + r.IntN(4), Dynamic: r.Float64() < 0.5,
		Team: r.Float64() < 0.5, Retries: 1}
	// Every number is drawn whatever the mix, so that run i of a seed is
	// the same phase under each mix, less the features left out.
	if r.Float64() < 0.25 && s.mix.worktrees {
		spec.Worktrees, spec.Resolver = true, true
	}
	if r.Float64() < 0.25 && s.mix.verifier {
		spec.Verify, spec.Verifier = true, true
	}
	n := 2 + r.IntN(7)
	top := 0.3 + 1.7*r.Float64() // a task on the top rung, as estimated
	s.top = top
	totalTasks := 0
	for i := 0; i < n; i++ {
		ps := phase.PlanSpec{ID: fmt.Sprintf("01-%02d", i+1), Wave: 1 + r.IntN(3), Tasks: 1 + r.IntN(5)}
		var earlier []string
		for _, q := range spec.Plans {
			if q.Wave < ps.Wave {
				earlier = append(earlier, q.ID)
			}
		}
		for k := r.IntN(3); k > 0 && len(earlier) > 0; k-- {
			j := r.IntN(len(earlier))
			ps.DependsOn = append(ps.DependsOn, earlier[j])
			earlier = append(earlier[:j], earlier[j+1:]...)
		}
		sp := &simPlan{spec: ps, factor: math.Exp(0.4 * r.NormFloat64())}
		if stop := 1 + r.IntN(max(ps.Tasks-1, 1)); r.Float64() < 0.2 && ps.Tasks > 1 && s.mix.checkpoints {
			sp.stop = stop
			ps.Stops = []phase.Stop{{Task: stop, Type: "human-verify"}}
			sp.spec = ps
		}
		sp.conflict = spec.Worktrees && r.Float64() < 0.3
		spec.Plans = append(spec.Plans, ps)
		s.plans[ps.ID] = sp
		s.order = append(s.order, sp)
		totalTasks += ps.Tasks
	}
	switch u := r.Float64(); {
	case u < 0.7:
		spec.Budget.TaskUSD = []float64{top, top * (0.3 + 0.2*r.Float64()), top * (0.06 + 0.09*r.Float64())}
	case u < 0.85:
		spec.Budget.TaskUSD = []float64{top}
	}
	estimate := float64(totalTasks) * top
	switch u := r.Float64(); {
	case u < 0.7:
		spec.Budget.USD = estimate * (0.3 + 1.3*r.Float64())
	case u < 0.9:
		spec.Budget.Tokens = int64(estimate / usdPerToken * (0.3 + 1.3*r.Float64()))
	default:
		spec.Budget.USD = estimate * (0.3 + 1.3*r.Float64())
		spec.Budget.Tokens = int64(estimate / usdPerToken * (0.3 + 1.3*r.Float64()))
	}
	if planUSD := top * (1.5 + 3.5*r.Float64()); r.Float64() < 0.15 && s.mix.planCeiling {
		spec.Budget.PlanUSD = planUSD
	}
	return spec
}

// rungScale is what a task costs on rung against the top rung.
func (s *budgetSim) rungScale(rung int) float64 {
	l := s.spec.Budget.TaskUSD
	if len(l) == 0 || l[0] <= 0 {
		return 1
	}
	return l[min(rung, len(l)-1)] / l[0]
}

// step hands the engine an event. Once the run has finished the runner
// steps nothing more; the agents it stopped then still end their turns,
// which the provider bills and bill counts.
func (s *budgetSim) step(ev phase.Event) error {
	if s.finished {
		return nil
	}
	ev.Time = s.now
	s.steps++
	out, err := s.e.Step(ev)
	if err != nil {
		return fmt.Errorf("step %s %s: %w", ev.Type, ev.Plan, err)
	}
	s.cmds = append(s.cmds, out...)
	return nil
}

func (s *budgetSim) push(it simItem) {
	s.seq++
	it.seq = s.seq
	heap.Push(&s.q, it)
}

func (s *budgetSim) after(d time.Duration) time.Time { return s.now.Add(d) }

func (s *budgetSim) soon() time.Duration {
	return time.Duration(1 + s.r.Int64N(int64(simCheckMax)))
}

// drain carries out the engine's commands, as a runner would.
func (s *budgetSim) drain() error {
	for len(s.cmds) > 0 {
		c := s.cmds[0]
		s.cmds = s.cmds[1:]
		switch c.Type {
		case phase.CmdStartAgent:
			if err := s.startAgent(c); err != nil {
				return err
			}
		case phase.CmdStopAgent:
			s.stopAgent(c)
		case phase.CmdSend:
			if c.Message == phase.MsgCheckpointResponse || c.Message == phase.MsgDeviationResponse {
				if a := s.agent(c.Plan, c.Attempt); a != nil && a.live && a.idle && !a.stopping {
					a.idle = false
					if err := s.next(a); err != nil {
						return err
					}
				}
			}
		case phase.CmdSpotCheck:
			p := s.plans[c.Plan]
			s.push(simItem{at: s.after(s.soon()), kind: simEvent,
				ev: phase.Event{Type: phase.EvSpotChecked, Plan: c.Plan, Attempt: c.Attempt, OK: p.done >= p.spec.Tasks,
					Reason: fmt.Sprintf("%d of %d tasks committed", p.done, p.spec.Tasks)}})
		case phase.CmdMerge:
			p := s.plans[c.Plan]
			ev := phase.Event{Type: phase.EvMerged, Plan: c.Plan, Attempt: c.Attempt, OK: true}
			if p.conflict {
				p.conflict = false // the resolver's resolution merges
				ev.OK, ev.Files = false, []string{"internal/shared.go"}
			}
			s.push(simItem{at: s.after(s.soon()), kind: simEvent, ev: ev})
		case phase.CmdGate:
			s.push(simItem{at: s.after(s.soon()), kind: simEvent,
				ev: phase.Event{Type: phase.EvGateChecked, Plan: c.Plan, Attempt: c.Attempt, OK: true}})
		case phase.CmdVerify:
			ev := phase.Event{Type: phase.EvVerified, Text: phase.VerifyPassed, Reason: phase.MechanicalOnly}
			if c.After == "report" {
				ev.Reason = "the verifier found every truth"
			}
			s.push(simItem{at: s.after(s.soon()), kind: simEvent, ev: ev})
		case phase.CmdWake:
			s.push(simItem{at: c.At, kind: simEvent, ev: phase.Event{Type: phase.EvWake}})
		case phase.CmdCheckpointOpened:
			if c.Checkpoint.Plan == phase.BudgetID {
				s.stops++
				s.anchor(true)
			}
			delay := simHumanMin + time.Duration(s.r.Int64N(int64(simHumanMax-simHumanMin)))
			s.push(simItem{at: s.after(delay), kind: simAnswer, cp: c.Checkpoint})
		case phase.CmdRunFinished:
			s.finished, s.outcome = true, c.Reason
		case phase.CmdStopForHuman:
			s.errs = append(s.errs, "an attended run stopped for a human")
		}
	}
	return nil
}

func (s *budgetSim) agent(plan string, attempt int) *simAgent {
	if plan == phase.VerifyID && s.verifier != nil && s.verifier.attempt == attempt {
		return s.verifier
	}
	if p := s.plans[plan]; p != nil {
		for _, a := range p.agents {
			if a.attempt == attempt {
				return a
			}
		}
	}
	return nil
}

// startAgent starts an agent process: it reports its pid and takes its
// first turn.
func (s *budgetSim) startAgent(c phase.Command) error {
	if c.Rung > 0 {
		s.downgraded = true
	}
	a := &simAgent{plan: c.Plan, role: c.Role, attempt: c.Attempt, rung: c.Rung, live: true}
	s.agents = append(s.agents, a)
	if c.Plan == phase.VerifyID {
		s.verifier = a
	} else {
		p := s.plans[c.Plan]
		p.agents = append(p.agents, a)
	}
	s.pids++
	if err := s.step(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: 1000 + s.pids, Role: c.Role}); err != nil {
		return err
	}
	return s.next(a)
}

// next has an agent take its next step: a turn, its checkpoint, or (with
// nothing left to do) PLAN COMPLETE and its end.
func (s *budgetSim) next(a *simAgent) error {
	if a.stopping || !a.live {
		return nil
	}
	switch a.role {
	case "verifier":
		if a.turns > 0 {
			return nil // it reviewed and reported in its one turn
		}
		s.startTurn(a, s.top*(0.2+0.3*s.r.Float64())*s.rungScale(a.rung), false)
		return nil
	case "comb":
		if a.turns >= 2 {
			return nil
		}
		s.startTurn(a, s.top*(0.1+0.3*s.r.Float64())*s.rungScale(a.rung), a.turns == 1)
		return nil
	}
	p := s.plans[a.plan]
	if a.turnsLeft == 0 {
		switch {
		case p.done >= p.spec.Tasks:
			// A continuation of a plan whose tasks are all committed.
			if err := s.step(phase.Event{Type: phase.EvPlanComplete, Plan: a.plan, Attempt: a.attempt}); err != nil {
				return err
			}
			s.exitSoon(a)
			return nil
		case p.stop > 0 && p.done == p.stop && !p.cpDone:
			if !p.cpOpen {
				return s.checkpoint(a, p)
			}
			a.idle = true
			return nil
		}
		// The task's true cost on a's rung, split over 1–4 turns.
		a.task = p.done + 1
		a.turnsLeft = 1 + s.r.IntN(4)
		a.perTurn = s.top * p.factor * s.rungScale(a.rung) / float64(a.turnsLeft)
	}
	a.turnsLeft--
	s.startTurn(a, a.perTurn*(0.5+s.r.Float64()), a.turnsLeft == 0)
	return nil
}

// startTurn begins a turn of cost usd. One turn in twenty-five costs three
// to ten times as much: a huge file read, a long test log.
func (s *budgetSim) startTurn(a *simAgent, usd float64, ends bool) {
	if s.r.Float64() < 0.04 {
		usd *= 3 + 7*s.r.Float64()
	}
	usd = math.Round(usd*1e4) / 1e4
	a.turns++
	a.gen++
	a.turn = &simTurn{usd: usd, tokens: int64(usd / s.rungScale(a.rung) / usdPerToken), ends: ends}
	d := simTurnMin + time.Duration(s.r.Int64N(int64(simTurnSpread)))
	s.push(simItem{at: s.after(d), kind: simTurnEnd, agent: a, gen: a.gen})
}

// turnEnd ends a's turn in flight: what it did, then its usage (the turn's
// result comes last, as a CLI's does), then its next step.
func (s *budgetSim) turnEnd(a *simAgent) error {
	t := a.turn
	var p *simPlan
	if a.plan != phase.VerifyID {
		p = s.plans[a.plan]
	}
	done := false // the agent has nothing more to do
	wait := false // it waits for an answer
	if !a.stopping {
		for k := 1 + s.r.IntN(3); k > 0; k-- {
			s.calls++
			if err := s.step(phase.Event{Type: phase.EvToolCall, Plan: a.plan, Attempt: a.attempt, Tool: "Edit",
				Text: fmt.Sprintf("h%d edit", s.calls)}); err != nil {
				return err
			}
		}
		switch {
		case a.role == "comb" && t.ends:
			if err := s.step(phase.Event{Type: phase.EvPlanComplete, Plan: a.plan, Attempt: a.attempt}); err != nil {
				return err
			}
			done = true
		case a.role == "" && t.ends:
			p.done = max(p.done, a.task)
			if err := s.step(phase.Event{Type: phase.EvProgress, Plan: a.plan, Attempt: a.attempt, Task: p.done, Total: p.spec.Tasks,
				Text: fmt.Sprintf("Task %d complete", p.done)}); err != nil {
				return err
			}
			if p.done >= p.spec.Tasks {
				if err := s.step(phase.Event{Type: phase.EvPlanComplete, Plan: a.plan, Attempt: a.attempt}); err != nil {
					return err
				}
				done = true
			} else if p.stop > 0 && p.done == p.stop && !p.cpDone && !p.cpOpen {
				p.cpOpen = true
				if err := s.step(phase.Event{Type: phase.EvCheckpoint, Plan: a.plan, Attempt: a.attempt,
					Checkpoint: &phase.Checkpoint{Type: "human-verify", Task: p.stop, Done: p.done, Total: p.spec.Tasks, Details: "check the page"}}); err != nil {
					return err
				}
				wait = true
			}
		}
	}
	a.turn = nil
	if err := s.bill(a, p, t); err != nil {
		return err
	}
	// The runner carries out what the engine made of the turn (a stop, a
	// merge) before the agent's next turn could begin.
	if err := s.drain(); err != nil {
		return err
	}
	switch {
	case a.stopping || done || a.role == "verifier":
		s.exitSoon(a)
	case wait && s.spec.Team:
		a.idle = true
	case wait:
		s.exitSoon(a) // a one-shot agent ends at its checkpoint
	default:
		return s.next(a)
	}
	return nil
}

// checkpoint raises p's checkpoint without a turn (an agent that starts
// where the checkpoint is).
func (s *budgetSim) checkpoint(a *simAgent, p *simPlan) error {
	p.cpOpen = true
	if err := s.step(phase.Event{Type: phase.EvCheckpoint, Plan: a.plan, Attempt: a.attempt,
		Checkpoint: &phase.Checkpoint{Type: "human-verify", Task: p.stop, Done: p.done, Total: p.spec.Tasks, Details: "check the page"}}); err != nil {
		return err
	}
	if s.spec.Team {
		a.idle = true
	} else {
		s.exitSoon(a)
	}
	return nil
}

// bill reports a turn's usage to the engine and records where the spend
// crosses a ceiling, with the allowance then: see budgetResult.
func (s *budgetSim) bill(a *simAgent, p *simPlan, t *simTurn) error {
	s.billedUSD += t.usd
	s.billedTok += t.tokens
	s.largestTurn = max(s.largestTurn, t.usd)
	if p != nil {
		p.billed += t.usd
	}
	in := t.tokens * 7 / 10
	cache := t.tokens / 4
	ev := phase.Event{Type: phase.EvUsage, Plan: a.plan, Attempt: a.attempt, Priced: true, TurnUSD: t.usd,
		Model: fmt.Sprintf("rung-%d", a.rung), InputTokens: in, CacheReadTokens: cache, OutputTokens: t.tokens - in - cache}
	if err := s.step(ev); err != nil {
		return err
	}
	s.anchor(false)
	if p != nil && s.spec.Budget.PlanUSD > 0 && !p.crossed && p.billed >= s.spec.Budget.PlanUSD {
		p.crossed = true
		p.allow = p.billed - s.spec.Budget.PlanUSD + s.inFlight(p)
	}
	return nil
}

// anchor fixes the allowance past the run's ceilings, once the spend
// reaches them or, with stopped, when the engine stops the run for its
// budget: see budgetResult.
func (s *budgetSim) anchor(stopped bool) {
	if s.ceiling > 0 && !s.anchoredUSD && (stopped || s.billedUSD >= s.ceiling) {
		s.anchoredUSD = true
		s.allowUSD = max(0, s.billedUSD-s.ceiling) + s.inFlight(nil)
	}
	if s.tokenCeil > 0 && !s.anchoredTok && (stopped || s.billedTok >= s.tokenCeil) {
		s.anchoredTok = true
		s.allowTok = max(0, s.billedTok-s.tokenCeil) + s.inFlightTokens()
	}
}

// inFlight sums the cost of the turns in flight: of every agent, or of
// p's agents.
func (s *budgetSim) inFlight(p *simPlan) float64 {
	agents := s.agents
	if p != nil {
		agents = p.agents
	}
	sum := 0.0
	for _, a := range agents {
		if a.live && a.turn != nil {
			sum += a.turn.usd
		}
	}
	return sum
}

func (s *budgetSim) inFlightTokens() int64 {
	var sum int64
	for _, a := range s.agents {
		if a.live && a.turn != nil {
			sum += a.turn.tokens
		}
	}
	return sum
}

// stopAgent ends an agent as asked: an interrupt ends its turn in flight
// at once, a plain stop lets it finish; either way the turn is billed
// whole (the engine cannot unbill it) and the agent starts no other.
func (s *budgetSim) stopAgent(c phase.Command) {
	a := s.agent(c.Plan, c.Attempt)
	if a == nil || !a.live || a.stopping || s.mix.deafAgents {
		return
	}
	a.stopping = true
	switch {
	case a.turn != nil && c.Interrupt:
		a.gen++
		s.push(simItem{at: s.after(simInterrupt), kind: simTurnEnd, agent: a, gen: a.gen})
	case a.turn == nil:
		s.exitSoon(a)
	}
}

func (s *budgetSim) exitSoon(a *simAgent) {
	s.push(simItem{at: s.after(simInterrupt / 2), kind: simExit, agent: a})
}

func (s *budgetSim) exit(a *simAgent) error {
	if !a.live {
		return nil
	}
	if a.turn != nil {
		// The stop landed before the turn ended; let the turn end first.
		a.stopping = true
		return nil
	}
	a.live = false
	return s.step(phase.Event{Type: phase.EvAgentExited, Plan: a.plan, Attempt: a.attempt})
}

// answer is the human's answer to an open checkpoint: stop at the budget
// (or raise it once, in some runs), approve a check, skip a failed plan,
// resolve a merge by hand.
func (s *budgetSim) answer(cp *phase.Checkpoint) error {
	if s.finished || !s.open(cp.ID) {
		return nil // settled meanwhile (an abort skips every plan)
	}
	ev := phase.Event{Type: phase.EvAnswer, Plan: cp.Plan, CheckpointID: cp.ID, By: "human"}
	switch cp.Kind {
	case phase.KindBudget:
		ev.Text = "stop"
		if s.raise && !s.raised {
			ev.Text = "raise"
			if err := s.step(ev); err == nil {
				s.raised = true
				b := s.e.Snapshot().Budget
				s.ceiling, s.tokenCeil = b.USD, b.Tokens
				// Measured afresh against the raised ceiling, which the
				// engine only accepts above the spend.
				s.anchoredUSD, s.anchoredTok = false, false
				s.allowUSD, s.allowTok = 0, 0
				return nil
			}
			ev.Text = "stop" // already spent past what raise would give
		}
	case phase.KindCheckpoint, phase.KindDeviation:
		ev.Text = "approved"
		if p := s.plans[cp.Plan]; p != nil && cp.Kind == phase.KindCheckpoint {
			p.cpDone, p.cpOpen = true, false
		}
	case phase.KindFailure:
		ev.Text = "skip"
	case phase.KindMerge:
		ev.Text = "done"
	case phase.KindVerify:
		ev.Text = "approved"
	case phase.KindPermission:
		ev.Text = "allow"
	default:
		return fmt.Errorf("checkpoint #%d of kind %q", cp.ID, cp.Kind)
	}
	return s.step(ev)
}

// open reports whether checkpoint id still waits.
func (s *budgetSim) open(id int) bool {
	for _, q := range s.e.Snapshot().Queue {
		if q.ID == id {
			return true
		}
	}
	return false
}

// result judges the run once every turn is billed.
func (s *budgetSim) result() budgetResult {
	res := budgetResult{Spec: s.spec, Ceiling: s.ceiling, Tokens: s.tokenCeil, SpentUSD: s.billedUSD, SpentTokens: s.billedTok,
		AllowUSD: s.allowUSD, AllowTokens: s.allowTok, Downgraded: s.downgraded, LargestTurn: s.largestTurn,
		Stops: s.stops, Raised: s.raised, Outcome: s.outcome}
	const eps = 1e-9
	if s.ceiling > 0 {
		res.Utilisation = s.billedUSD / s.ceiling
		if over := s.billedUSD - s.ceiling; over > s.allowUSD+eps {
			res.OverRun = true
			res.Why = fmt.Sprintf("spent $%.2f of $%.2f: $%.2f over, $%.2f allowed (the crossing turn and those in flight)", s.billedUSD, s.ceiling, over, s.allowUSD)
		}
	}
	if s.tokenCeil > 0 {
		res.Utilisation = max(res.Utilisation, float64(s.billedTok)/float64(s.tokenCeil))
		if over := s.billedTok - s.tokenCeil; over > s.allowTok && !res.OverRun {
			res.OverRun = true
			res.Why = fmt.Sprintf("spent %d of %d tokens: %d over, %d allowed", s.billedTok, s.tokenCeil, over, s.allowTok)
		}
	}
	if pl := s.spec.Budget.PlanUSD; pl > 0 {
		for _, p := range s.order {
			if over := p.billed - pl; over > p.allow+eps && !res.OverPlan {
				res.OverPlan = true
				why := fmt.Sprintf("plan %s spent $%.2f of its $%.2f: $%.2f over, $%.2f allowed", p.spec.ID, p.billed, pl, over, p.allow)
				if res.Why == "" {
					res.Why = why
				}
			}
		}
	}
	return res
}
