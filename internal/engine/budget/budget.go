package budget

import (
	"fmt"
	"iter"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// TurnRules is the engine version from which a dollar budget holds new
// turns to the largest turn seen (TurnShort).
const TurnRules = 7

// State is the budget as the run goes.
type State struct {
	phase.Budget
	spent work.Spend        // every agent's spend in the run: plans, resolvers, verifier
	open  *phase.Checkpoint // the budget checkpoint, while it waits: no agent starts meanwhile
	// ladder is where new agents start on the executor's model ladder.
	ladder work.Ladder
	// turns are the agents' turns, for the rule that holds new turns to
	// what is left (TurnShort, engine version 7).
	turns work.Turns
}

// New is the budget of a run that starts with b.
func New(b phase.Budget) State { return State{Budget: b} }

// Spent is what every agent of the run spent.
func (b *State) Spent() work.Spend { return b.spent }

// Rung is the model ladder's step that agents start on at least.
func (b *State) Rung() int { return b.ladder.Rung }

// Open is the budget checkpoint while it waits for the human; nil when
// none does.
func (b *State) Open() *phase.Checkpoint { return b.open }

// Left is what is left of the run's dollar ceiling.
func (b *State) Left() float64 { return b.USD - b.spent.CostUSD }

// Text says the ceilings.
func (b *State) Text() string { return b.Ceilings.String() }

// reached reports whether the run's spend has reached its ceiling, and how.
func (b *State) reached() (string, bool) { return b.Reached(b.spent) }

// share is the largest share of a ceiling spent so far.
func (b *State) share() float64 { return b.Share(b.spent) }

// Started notes that a turn of job's attempt is in flight.
func (b *State) Started(job string, attempt int) { b.turns.Started(job, attempt) }

// Gone notes that job's attempt has no turn in flight any more: its
// process ended.
func (b *State) Gone(job string, attempt int) { b.turns.Gone(job, attempt) }

// Ended notes that no turn is in flight: the previous process's agents
// are ended.
func (b *State) Ended() { b.turns.Ended() }

// Turning reports whether job's attempt has a turn that has not ended.
func (b *State) Turning(job string, attempt int) bool {
	return b.turns.Load(work.TurnKey{Job: job, Attempt: attempt}).N > 0
}

// AnswerRules is the engine version from which an answer waits for the
// answered agent's turn to end (AnswerWaits).
const AnswerRules = 11

// AnswerWaits reports whether the answer to job's attempt, asked by its
// live agent, must wait for the agent's turn to end, under the rules of
// engine version rules: under a dollar budget, while the turn that asked
// has not ended, so that the next turn is weighed against what this one
// cost, and the agent has one turn in flight, not two.
func (b *State) AnswerWaits(rules int, job string, attempt int) bool {
	return rules >= AnswerRules && b.USD > 0 && b.Turning(job, attempt)
}

// Count counts a turn's usage (already added to its job) into the run's
// total.
func (b *State) Count(ev phase.Event, usd, cli float64) {
	CountTurn(&b.spent, ev, usd, cli)
	b.turns.Spent(ev.Plan, ev.Attempt, usd, ev.Type == phase.EvUsage)
}

// Action is what the run's ceiling asks of the engine once a turn's usage
// is counted.
type Action int

// Actions.
const (
	Go       Action = iota // nothing to stop
	Stop                   // interrupt every agent at work and open the budget checkpoint
	Halt                   // interrupt every agent at work: the checkpoint is open already
	HoldTurn               // the checkpoint holds every new turn: the agent whose turn ended starts no other
)

// Check applies the run's ceiling to what Count counted: the 80 % downgrade
// (note, for the human), and, at the ceiling, what to stop and why. The
// overshoot is the turn that crossed it. turnEnded says the turn of a
// plan's current agent ended; workLeft whether any plan is still to be
// done. The engine follows the rules of version rules.
func (b *State) Check(rules int, turnEnded bool, workLeft func() bool) (note string, a Action, why string) {
	if !b.Limited() {
		return "", Go, ""
	}
	what, reached := b.reached()
	note, _ = b.ladder.Warn(b.share(), !reached && workLeft(), len(b.TaskUSD) > 1, "agents")
	switch {
	case reached && b.open == nil:
		return note, Stop, "budget reached: " + what
	case reached && rules >= TurnRules:
		// The checkpoint opened while less than a turn was left, and the
		// turns in flight went on: at the ceiling they stop.
		return note, Halt, "budget reached: " + what
	case b.open != nil && rules >= TurnRules && turnEnded:
		// The checkpoint holds every new turn: an agent whose turn ended
		// starts no other of its own until the budget is raised.
		return note, HoldTurn, b.open.Details
	}
	return note, Go, ""
}

// TurnShort reports whether the run's dollar budget is too short for
// another turn, and says so. A turn may cost as much as the largest so far
// (before any turn ended, a task's estimate, if there is one): the next
// one starts only if what is left holds it and, as much again, each turn
// in flight (less what that turn has reported). Turns that cost no more
// than the largest before them then never pass the ceiling together.
func (b *State) TurnShort(rules int) (string, bool) {
	if rules < TurnRules {
		return "", false
	}
	estimate := 0.0
	if est := b.TaskUSD; len(est) > 0 {
		estimate = est[min(b.ladder.Rung, len(est)-1)]
	}
	why, short := b.turns.Short(b.USD, b.spent.CostUSD, estimate, "a task's estimate, before any turn ended")
	if !short {
		return "", false
	}
	return "budget reached: " + why, true
}

// PlanOver reports whether plan p has spent its own ceiling, and how much,
// when no human has since let it go on (pastCeiling: a retry of the
// failure that said so): a plan over its ceiling gets no more agent work
// without a human's say.
func (b *State) PlanOver(p *phase.PlanStatus, pastCeiling bool) (string, bool) {
	if b.PlanUSD <= 0 || p.Spend.CostUSD < b.PlanUSD || pastCeiling {
		return "", false
	}
	return fmt.Sprintf("the plan's budget is spent ($%.2f of $%.2f)", p.Spend.CostUSD, b.PlanUSD), true
}

// Ask opens the budget checkpoint, raised at now: no agent starts until
// the human raises the budget or stops the run.
func (b *State) Ask(why string, now time.Time) *phase.Checkpoint {
	raise := b.suggestedRaise()
	cp := &phase.Checkpoint{Plan: phase.BudgetID, Kind: phase.KindBudget, Type: "budget", Standalone: true,
		Details:  why,
		Awaiting: fmt.Sprintf("raise (to %s), raise AMOUNT (e.g. raise %s), or stop", raise, raise),
		Options:  []string{"raise", "stop"}, Raised: now}
	b.open = cp
	return cp
}

// suggestedRaise is what "raise" raises the budget to: half as much again
// as it is, or double what the work still needs when that is more.
func (b *State) suggestedRaise() string {
	if b.USD > 0 {
		return fmt.Sprintf("$%.2f", b.USD*1.5)
	}
	return fmt.Sprintf("%d tokens", b.Tokens*3/2)
}

// Answer reads the answer to the budget checkpoint: stop, or a raise,
// which lifts the ceilings (the checkpoint is then to be closed, and the
// interrupted work goes on).
func (b *State) Answer(text string) (stop bool, err error) {
	if b.open == nil {
		return false, fmt.Errorf("the budget has no open checkpoint")
	}
	old := b.USD
	if old == 0 {
		old = float64(b.Tokens)
	}
	stop, factor, err := work.ReadBudgetAnswer(text, old)
	if err != nil || stop {
		return stop, err
	}
	if factor <= 1 {
		return false, fmt.Errorf("raise the budget above what it is (%s), or answer stop", b.Text())
	}
	b.Ceilings = b.Raised(factor)
	if _, still := b.reached(); still {
		return false, fmt.Errorf("%s is already spent: raise the budget above it, or answer stop", b.Text())
	}
	b.ladder.Raised(b.share())
	return false, nil
}

// Close closes the budget checkpoint with answer, given by by, and
// returns it.
func (b *State) Close(answer, by string) *phase.Checkpoint {
	cp := b.open
	cp.Answer, cp.AnsweredBy = answer, by
	b.open = nil
	return cp
}

// Fit decides the rung plan id's next agent starts on, for its tasks
// still to do: the budget's rung, or lower while their estimate does not
// fit what is left. When even the cheapest rung does not fit, short says
// so. plans are the run's plans, whose history prices a task.
func (b *State) Fit(id string, tasks int, plans iter.Seq[*phase.PlanStatus]) (rung int, short string) {
	rung = b.ladder.Rung
	if len(b.TaskUSD) == 0 || b.USD <= 0 {
		return rung, ""
	}
	rung = min(rung, len(b.TaskUSD)-1)
	left := b.USD - b.spent.CostUSD
	per := b.perTask(plans)
	for ; rung < len(b.TaskUSD); rung++ {
		if float64(tasks)*per*b.TaskUSD[rung]/b.TaskUSD[0] <= left || b.TaskUSD[0] == 0 {
			return rung, ""
		}
	}
	rung = len(b.TaskUSD) - 1
	return rung, fmt.Sprintf("budget too small for plan %s: about $%.2f needed on the cheapest model, $%.2f left of $%.2f",
		id, float64(tasks)*per*b.TaskUSD[rung]/b.TaskUSD[0], left, b.USD)
}

// perTask is what a task costs on the ladder's top rung: the run's own
// history when plans have completed (each priced back to the top rung),
// else the shell's estimate.
func (b *State) perTask(plans iter.Seq[*phase.PlanStatus]) float64 {
	cost, tasks := 0.0, 0
	for p := range plans {
		if p.State == phase.Complete && !p.Spec.Done && p.Spec.Tasks > 0 && p.CostUSD > 0 {
			scale := 1.0
			if r := min(p.Rung, len(b.TaskUSD)-1); b.TaskUSD[r] > 0 {
				scale = b.TaskUSD[0] / b.TaskUSD[r]
			}
			cost += p.CostUSD * scale
			tasks += p.Spec.Tasks
		}
	}
	if tasks > 0 {
		return cost / float64(tasks)
	}
	return b.TaskUSD[0]
}

// Allotment is what one agent may spend at most: what is left of the
// run's budget, and of its plan's, p (nil: the agent has no plan); 0: no
// limit. A one-shot agent gets it as its CLI's own ceiling.
func (b *State) Allotment(p *phase.PlanStatus) float64 {
	left := 0.0
	if b.USD > 0 {
		left = max(0.01, b.USD-b.spent.CostUSD)
	}
	if p != nil && b.PlanUSD > 0 {
		pl := max(0.01, b.PlanUSD-p.CostUSD)
		if left == 0 || pl < left {
			left = pl
		}
	}
	return left
}

// Record is the budget as plain data, for the engine's export.
func (b *State) Record() phase.BudgetRecord {
	r := phase.BudgetRecord{Budget: b.Budget, Rung: b.ladder.Rung, Warned: b.ladder.Warned, Spent: b.spent}
	r.LargestTurn, r.TurnEnded = b.turns.Largest()
	for _, k := range b.turns.InFlight() {
		l := b.turns.Load(k)
		r.Turns = append(r.Turns, phase.TurnCost{Plan: k.Job, Attempt: k.Attempt, Turns: l.N, USD: l.USD})
	}
	if b.open != nil {
		r.Open = b.open.Copy()
	}
	return r
}

// Restore is the budget that r records.
func Restore(r phase.BudgetRecord) State {
	b := State{Budget: r.Budget, ladder: work.Ladder{Rung: r.Rung, Warned: r.Warned}, open: r.Open, spent: r.Spent}
	var inFlight map[work.TurnKey]work.TurnLoad
	for _, t := range r.Turns {
		if inFlight == nil {
			inFlight = map[work.TurnKey]work.TurnLoad{}
		}
		inFlight[work.TurnKey{Job: t.Plan, Attempt: t.Attempt}] = work.TurnLoad{N: t.Turns, USD: t.USD}
	}
	b.turns = work.Restore(r.LargestTurn, r.TurnEnded, inFlight)
	return b
}

// AddTurn counts a turn's usage of ev's attempt into s, remembering in
// seen the session cost already counted, and returns the turn's cost and
// what its CLI reported for it.
func AddTurn(s *work.Spend, seen *phase.SessionCosts, ev phase.Event) (usd, cli float64) {
	if *seen == nil {
		*seen = phase.SessionCosts{}
	}
	if ev.CostUSD > (*seen)[ev.Attempt] {
		cli = ev.CostUSD - (*seen)[ev.Attempt]
		(*seen)[ev.Attempt] = ev.CostUSD
	}
	usd = cli
	if ev.Priced {
		usd = ev.TurnUSD
	}
	CountTurn(s, ev, usd, cli)
	return usd, cli
}

// CountTurn adds a turn's tokens and costs to s.
func CountTurn(s *work.Spend, ev phase.Event, usd, cli float64) {
	s.InputTokens += ev.InputTokens
	s.OutputTokens += ev.OutputTokens
	s.CacheReadTokens += ev.CacheReadTokens
	s.CacheWriteTokens += ev.CacheWriteTokens
	s.CostUSD += usd
	s.CLICostUSD += cli
}
