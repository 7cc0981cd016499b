package budget

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

// State is the budget as the run goes.
type State struct {
	roleplan.Budget
	// Ladder is where new sessions start on their roles' model ladders.
	Ladder work.Ladder
	// Turns are the role sessions' turns, for the turn-fit rule (Rules 1).
	Turns work.Turns
}

// New is the budget a run starts with.
func New(b roleplan.Budget) State { return State{Budget: b.Clone()} }

// Ceiling is one ceiling reached: which, its limit and what is spent of
// it, in its unit.
type Ceiling struct {
	Name         string // roleplan.CeilingRun or a role
	Limit, Spent float64
	Tokens       bool
}

func (c Ceiling) String() string {
	who := "the run's budget"
	if c.Name != roleplan.CeilingRun {
		who = "the " + c.Name + "'s budget (budget.roles." + c.Name + ")"
	}
	if c.Tokens {
		return fmt.Sprintf("%s: %.0f of %.0f tokens spent", who, c.Spent, c.Limit)
	}
	return fmt.Sprintf("%s: $%.2f of $%.2f spent", who, c.Spent, c.Limit)
}

// Answers is how the budget checkpoint of c is answered.
func (c Ceiling) Answers() string {
	raise := c.Limit * 1.5
	unit := func(v float64) string {
		if c.Tokens {
			return fmt.Sprintf("%.0f tokens", v)
		}
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("raise (to %s), raise AMOUNT (e.g. raise %s), or stop", unit(raise), strings.TrimPrefix(unit(raise), "$"))
}

// Reached returns the ceiling a role's next session cannot pass, if one is
// spent: the run's dollars, its tokens, or the role's own dollars.
func (s *State) Reached(b *jobs.Board, role string) (Ceiling, bool) {
	spent := b.Spent()
	switch {
	case s.USD > 0 && spent.CostUSD >= s.USD:
		return Ceiling{Name: roleplan.CeilingRun, Limit: s.USD, Spent: spent.CostUSD}, true
	case s.Tokens > 0 && spent.Tokens() >= s.Tokens:
		return Ceiling{Name: roleplan.CeilingRun, Limit: float64(s.Tokens), Spent: float64(spent.Tokens()), Tokens: true}, true
	}
	if lim := s.Roles[role]; lim > 0 {
		if spent := b.RoleSpent(role); spent >= lim {
			return Ceiling{Name: role, Limit: lim, Spent: spent}, true
		}
	}
	return Ceiling{}, false
}

// allotment is what a role's next session may spend: what is left of the
// run's budget and of the role's own (0: no limit).
func (s *State) allotment(b *jobs.Board, role string) (usd float64, tokens int64) {
	spent := b.Spent()
	if s.USD > 0 {
		usd = s.USD - spent.CostUSD
	}
	if lim := s.Roles[role]; lim > 0 {
		left := lim - b.RoleSpent(role)
		if usd == 0 || left < usd {
			usd = left
		}
	}
	if s.Tokens > 0 {
		tokens = s.Tokens - spent.Tokens()
	}
	return usd, tokens
}

// Session is what a job's next session may spend (0: no limit), and the
// rung of its role's model ladder it runs on (0: the role's own model).
type Session struct {
	USD    float64
	Tokens int64
	Rung   int
}

// Dispatch decides how j's next session starts within the budget: its
// allotment, and the rung of its role's model ladder, lowered while the
// role's estimate does not fit what is left. held says the session cannot
// start: nothing is left (of Ceiling c), the turns in flight leave too
// little (turnFit: the turn-fit rule holds), or not even the cheapest rung
// fits; why says so, for the human asked to raise c.
func (s *State) Dispatch(b *jobs.Board, j *jobs.Job, turnFit bool) (next Session, why string, c Ceiling, held bool) {
	if c, over := s.Reached(b, j.Role); over {
		return Session{}, c.String(), c, true
	}
	if why, short := s.turnShort(b, j, turnFit); short {
		return Session{}, why, Ceiling{Name: roleplan.CeilingRun, Limit: s.USD, Spent: b.Spent().CostUSD}, true
	}
	usd, tokens := s.allotment(b, j.Role)
	est := s.Estimates[j.Role]
	if j.Phase || len(est) == 0 {
		return Session{USD: usd, Tokens: tokens}, "", Ceiling{}, false
	}
	rung := min(s.Ladder.Rung, len(est)-1)
	for usd > 0 && rung < len(est) && est[rung] > usd {
		rung++
	}
	if rung == len(est) {
		c := s.CeilingOf(b, j.Role)
		why := fmt.Sprintf("%s: $%.2f left, and a %s session is estimated at $%.2f even on the cheapest model", c, usd, j.Role, est[len(est)-1])
		return Session{}, why, c, true
	}
	return Session{USD: usd, Tokens: tokens, Rung: rung}, "", Ceiling{}, false
}

// turnShort reports whether the run's dollar budget is too short for a
// session of j's role beside the sessions in flight (work.Turns.Short):
// each may cost as much as the largest turn so far, or, before any turn
// ended, the role's estimate. The sessions in flight go on; j waits for
// the human's raise. A phase is bounded by its own engine, and a build
// costs nothing.
func (s *State) turnShort(b *jobs.Board, j *jobs.Job, turnFit bool) (string, bool) {
	if !turnFit || j.Phase || j.Type != "" {
		return "", false
	}
	estimate := 0.0
	if est := s.Estimates[j.Role]; len(est) > 0 {
		estimate = est[min(s.Ladder.Rung, len(est)-1)]
	}
	why, short := s.Turns.Short(s.USD, b.Spent().CostUSD, estimate, "a "+j.Role+" session's estimate, before any turn ended")
	if !short {
		return "", false
	}
	return "the run's budget: " + why, true
}

// SpentOf is what is spent now of a budget checkpoint's ceiling.
func (s *State) SpentOf(b *jobs.Board, cp *roleplan.Checkpoint) float64 {
	switch {
	case cp.Ceiling != roleplan.CeilingRun:
		return b.RoleSpent(cp.Ceiling)
	case cp.TokenCeiling:
		return float64(b.Spent().Tokens())
	}
	return b.Spent().CostUSD
}

// CeilingOf is the ceiling that leaves a role the least: its own, or the
// run's.
func (s *State) CeilingOf(b *jobs.Board, role string) Ceiling {
	spent := b.Spent()
	run := Ceiling{Name: roleplan.CeilingRun, Limit: s.USD, Spent: spent.CostUSD}
	if s.USD <= 0 && s.Tokens > 0 {
		run = Ceiling{Name: roleplan.CeilingRun, Limit: float64(s.Tokens), Spent: float64(spent.Tokens()), Tokens: true}
	}
	if lim := s.Roles[role]; lim > 0 {
		own := Ceiling{Name: role, Limit: lim, Spent: b.RoleSpent(role)}
		if s.USD <= 0 || own.Limit-own.Spent < run.Limit-run.Spent {
			return own
		}
	}
	return run
}

// Spend applies the budget after a turn of j's agent was counted: past
// work.WarnShare with work left, the sessions started from then on go
// one rung down their ladders (seed 003 §5.3), which a note says; at a
// ceiling, the agent's turn is interrupted, and the agents working beside
// it, which start again once the budget is raised: stopped says so, and
// the human is to be asked to raise c or stop. The overshoot is the turn
// that crossed it.
func (s *State) Spend(b *jobs.Board, j *jobs.Job) (out []roleplan.Command, c Ceiling, stopped bool) {
	c, over := s.Reached(b, j.Role)
	if s.Limited() {
		if text, ok := s.Ladder.Warn(s.Share(b.Spent()), !over && len(b.Agenda) > 0, s.ladders(), "roles"); ok {
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: text})
		}
	}
	if !over || j.State != roleplan.Running || j.Phase || j.Reported != nil {
		// A turn that ended with the role's report: its work is done, and
		// the next session is held where it would start.
		return out, c, false
	}
	out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID, Interrupt: true, Text: c.String()})
	j.Interrupted = true
	j.Next = j.CutOff("the budget stopped the previous attempt and was raised since: go on from the commits it made")
	for _, o := range b.List {
		if o != j && o.State == roleplan.Running && o.Type == "" && !o.Phase && o.Reported == nil {
			out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: o.ID, Attempt: o.Attempts, PID: o.PID, Interrupt: true, Text: c.String()})
			o.State, o.Next = roleplan.Pending, o.CutOff("the budget stopped the previous attempt and was raised since: go on from the commits it made")
		}
	}
	return out, c, true
}

// ladders reports whether any role has a cheaper rung to go down to.
func (s *State) ladders() bool {
	for _, est := range s.Estimates {
		if len(est) > 1 {
			return true
		}
	}
	return false
}

// Raise lifts the ceiling of a budget checkpoint by factor (a raise its
// Check accepted), and says so.
func (s *State) Raise(b *jobs.Board, cp *roleplan.Checkpoint, factor float64) string {
	var text string
	if cp.Ceiling == roleplan.CeilingRun {
		s.Ceilings = s.Raised(factor)
		text = "the run's budget raised to " + s.Ceilings.String()
	} else {
		s.Roles = maps.Clone(s.Roles)
		s.Roles[cp.Ceiling] *= factor
		text = fmt.Sprintf("the %s's budget raised to $%.2f", cp.Ceiling, s.Roles[cp.Ceiling])
	}
	s.Ladder.Raised(s.Share(b.Spent()))
	return text
}
