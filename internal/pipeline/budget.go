package pipeline

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
)

// budgetState is the budget as the run goes.
type budgetState struct {
	roleplan.Budget
	// ladder is where new sessions start on their roles' model ladders.
	ladder work.Ladder
	// turns are the role sessions' turns, for the turn-fit rule (Rules 1).
	turns work.Turns
}

// ceiling is one ceiling reached: which, its limit and what is spent of
// it, in its unit.
type ceiling struct {
	name         string // CeilingRun or a role
	limit, spent float64
	tokens       bool
}

func (c ceiling) String() string {
	who := "the run's budget"
	if c.name != roleplan.CeilingRun {
		who = "the " + c.name + "'s budget (budget.roles." + c.name + ")"
	}
	if c.tokens {
		return fmt.Sprintf("%s: %.0f of %.0f tokens spent", who, c.spent, c.limit)
	}
	return fmt.Sprintf("%s: $%.2f of $%.2f spent", who, c.spent, c.limit)
}

// reached returns the ceiling a role's next session cannot pass, if one is
// spent: the run's dollars, its tokens, or the role's own dollars.
func (m *Machine) reached(role string) (ceiling, bool) {
	b := &m.budget
	s := m.jobs.Spent()
	switch {
	case b.USD > 0 && s.CostUSD >= b.USD:
		return ceiling{name: roleplan.CeilingRun, limit: b.USD, spent: s.CostUSD}, true
	case b.Tokens > 0 && s.Tokens() >= b.Tokens:
		return ceiling{name: roleplan.CeilingRun, limit: float64(b.Tokens), spent: float64(s.Tokens()), tokens: true}, true
	}
	if lim := b.Roles[role]; lim > 0 {
		if spent := m.jobs.RoleSpent(role); spent >= lim {
			return ceiling{name: role, limit: lim, spent: spent}, true
		}
	}
	return ceiling{}, false
}

// allotment is what a role's next session may spend: what is left of the
// run's budget and of the role's own (0: no limit).
func (m *Machine) allotment(role string) (usd float64, tokens int64) {
	b := &m.budget
	s := m.jobs.Spent()
	if b.USD > 0 {
		usd = b.USD - s.CostUSD
	}
	if lim := b.Roles[role]; lim > 0 {
		left := lim - m.jobs.RoleSpent(role)
		if usd == 0 || left < usd {
			usd = left
		}
	}
	if b.Tokens > 0 {
		tokens = b.Tokens - s.Tokens()
	}
	return usd, tokens
}

// share is the largest share of the run's ceilings spent so far.
func (m *Machine) share() float64 { return m.budget.Share(m.jobs.Spent()) }

// dispatch decides how j's next session starts within the budget: its
// allotment, and the rung of its role's model ladder, lowered while the
// role's estimate does not fit what is left. held is a checkpoint when
// nothing is left, or not even the cheapest rung fits (ask asks it, unless
// another question is open: it is asked after).
func (m *Machine) dispatch(j *jobs.Job) (usd float64, tokens int64, rung int, held bool, ask []roleplan.Command) {
	if c, over := m.reached(j.Role); over {
		return 0, 0, 0, true, m.askBudget(j, c.String(), c)
	}
	if why, short := m.turnShort(j); short {
		return 0, 0, 0, true, m.askBudget(j, why, ceiling{name: roleplan.CeilingRun, limit: m.budget.USD, spent: m.jobs.Spent().CostUSD})
	}
	usd, tokens = m.allotment(j.Role)
	est := m.budget.Estimates[j.Role]
	if j.Phase || len(est) == 0 {
		return usd, tokens, 0, false, nil
	}
	rung = min(m.budget.ladder.Rung, len(est)-1)
	for usd > 0 && rung < len(est) && est[rung] > usd {
		rung++
	}
	if rung == len(est) {
		c := m.ceilingOf(j.Role)
		why := fmt.Sprintf("%s: $%.2f left, and a %s session is estimated at $%.2f even on the cheapest model", c, usd, j.Role, est[len(est)-1])
		return 0, 0, 0, true, m.askBudget(j, why, c)
	}
	return usd, tokens, rung, false, nil
}

// turnShort reports whether the run's dollar budget is too short for a
// session of j's role beside the sessions in flight (work.Turns.Short):
// each may cost as much as the largest turn so far, or, before any turn
// ended, the role's estimate. The sessions in flight go on; j waits for
// the human's raise. A phase is bounded by its own engine, and a build
// costs nothing.
func (m *Machine) turnShort(j *jobs.Job) (string, bool) {
	b := &m.budget
	if m.spec.Rules < turnRules || j.Phase || j.Type != "" {
		return "", false
	}
	estimate := 0.0
	if est := b.Estimates[j.Role]; len(est) > 0 {
		estimate = est[min(b.ladder.Rung, len(est)-1)]
	}
	why, short := b.turns.Short(b.USD, m.jobs.Spent().CostUSD, estimate, "a "+j.Role+" session's estimate, before any turn ended")
	if !short {
		return "", false
	}
	return "the run's budget: " + why, true
}

// spentOf is what is spent now of a budget checkpoint's ceiling.
func (m *Machine) spentOf(cp *roleplan.Checkpoint) float64 {
	switch {
	case cp.Ceiling != roleplan.CeilingRun:
		return m.jobs.RoleSpent(cp.Ceiling)
	case cp.TokenCeiling:
		return float64(m.jobs.Spent().Tokens())
	}
	return m.jobs.Spent().CostUSD
}

// ceilingOf is the ceiling that leaves a role the least: its own, or the
// run's.
func (m *Machine) ceilingOf(role string) ceiling {
	b := &m.budget
	s := m.jobs.Spent()
	run := ceiling{name: roleplan.CeilingRun, limit: b.USD, spent: s.CostUSD}
	if b.USD <= 0 && b.Tokens > 0 {
		run = ceiling{name: roleplan.CeilingRun, limit: float64(b.Tokens), spent: float64(s.Tokens()), tokens: true}
	}
	if lim := b.Roles[role]; lim > 0 {
		own := ceiling{name: role, limit: lim, spent: m.jobs.RoleSpent(role)}
		if b.USD <= 0 || own.limit-own.spent < run.limit-run.spent {
			return own
		}
	}
	return run
}

// spend applies the budget after a turn of j's agent was counted: past
// work.WarnShare with work left, the sessions started from then on go
// one rung down their ladders (seed 003 §5.3); at a ceiling, the agent's
// turn is interrupted and the human asked to raise the budget or stop.
// The overshoot is the turn that crossed it.
func (m *Machine) spend(j *jobs.Job) []roleplan.Command {
	if cp := m.open; cp != nil && cp.Kind == roleplan.KindBudget {
		// A raise must pass what is spent when it is answered.
		cp.Spent = m.spentOf(cp)
	}
	if m.finished || m.open != nil {
		return nil
	}
	var out []roleplan.Command
	c, over := m.reached(j.Role)
	if b := &m.budget; b.Limited() {
		if text, ok := b.ladder.Warn(m.share(), !over && len(m.jobs.Agenda) > 0, m.ladders(), "roles"); ok {
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: text})
		}
	}
	if !over || j.State != roleplan.Running || j.Phase || j.Reported != nil {
		// A turn that ended with the role's report: its work is done, and
		// the next session is held where it would start.
		return out
	}
	out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: j.ID, Attempt: j.Attempts, PID: j.PID, Interrupt: true, Text: c.String()})
	j.Interrupted = true
	j.Next = j.CutOff("the budget stopped the previous attempt and was raised since: go on from the commits it made")
	// The agents working beside it stop too, and start again once the
	// budget is raised.
	for _, o := range m.jobs.List {
		if o != j && o.State == roleplan.Running && o.Type == "" && !o.Phase && o.Reported == nil {
			out = append(out, roleplan.Command{Type: roleplan.CmdStopAgent, Job: o.ID, Attempt: o.Attempts, PID: o.PID, Interrupt: true, Text: c.String()})
			o.State, o.Next = roleplan.Pending, o.CutOff("the budget stopped the previous attempt and was raised since: go on from the commits it made")
		}
	}
	return append(out, m.askBudget(j, c.String(), c)...)
}

// ladders reports whether any role has a cheaper rung to go down to.
func (m *Machine) ladders() bool {
	for _, est := range m.budget.Estimates {
		if len(est) > 1 {
			return true
		}
	}
	return false
}

// askBudget opens the budget checkpoint on j.
func (m *Machine) askBudget(j *jobs.Job, why string, c ceiling) []roleplan.Command {
	raise := c.limit * 1.5
	unit := func(v float64) string {
		if c.tokens {
			return fmt.Sprintf("%.0f tokens", v)
		}
		return fmt.Sprintf("$%.2f", v)
	}
	details := fmt.Sprintf("raise (to %s), raise AMOUNT (e.g. raise %s), or stop", unit(raise), strings.TrimPrefix(unit(raise), "$"))
	if fixing := m.followFixing(j); fixing != "" {
		details += "\n\n" + fixing
	}
	cmds := m.ask(j, roleplan.KindBudget, "budget reached: "+why, details, []string{roleplan.AnswerRaise, roleplan.AnswerStop})
	m.open.Ceiling, m.open.Limit, m.open.Spent, m.open.TokenCeiling = c.name, c.limit, c.spent, c.tokens
	return cmds
}

// budgetAnswered applies a raise (checked by Check): the ceiling is lifted
// and the held job starts again, unless the agent the budget interrupted
// had reported its work before it stopped: that work is not done again.
func (m *Machine) budgetAnswered(j *jobs.Job, cp *roleplan.Checkpoint, factor float64) []roleplan.Command {
	b := &m.budget
	var text string
	if cp.Ceiling == roleplan.CeilingRun {
		b.Ceilings = b.Raised(factor)
		text = "the run's budget raised to " + b.Ceilings.String()
	} else {
		b.Roles = maps.Clone(b.Roles)
		b.Roles[cp.Ceiling] *= factor
		text = fmt.Sprintf("the %s's budget raised to $%.2f", cp.Ceiling, b.Roles[cp.Ceiling])
	}
	b.ladder.Raised(m.share())
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: text}
	interrupted := j.Interrupted
	j.Interrupted = false
	if interrupted && j.Reported != nil {
		j.Next = nil
		return append([]roleplan.Command{note}, m.route(j, j.Reported)...)
	}
	return append([]roleplan.Command{note}, m.run(j)...)
}
