package pipeline

import (
	"slices"

	"github.com/hivectl/hive/internal/pipeline/budget"
	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
)

// spend applies the budget after a turn of j's agent was counted
// (budget.State.Spend): at a ceiling, the human is asked to raise the
// budget or stop.
func (m *Machine) spend(j *jobs.Job) []roleplan.Command {
	if cp := m.open; cp != nil && cp.Kind == roleplan.KindBudget {
		// A raise must pass what is spent when it is answered.
		cp.Spent = m.budget.SpentOf(&m.jobs, cp)
	}
	if m.finished || m.budgetAsked() || (m.open != nil && m.spec.Rules < queuedBudgetRules) {
		// The budget's question is asked already, and the agents it
		// stopped are ending; before rules 5, any open question held the
		// budget off until it was answered.
		return nil
	}
	out, c, stopped := m.budget.Spend(&m.jobs, j)
	if !stopped {
		return out
	}
	return append(out, m.askBudget(j, c.String(), c)...)
}

// budgetAsked reports whether a budget checkpoint is open or waits its turn.
func (m *Machine) budgetAsked() bool {
	isBudget := func(cp *roleplan.Checkpoint) bool { return cp != nil && cp.Kind == roleplan.KindBudget }
	return isBudget(m.open) || slices.ContainsFunc(m.queue, isBudget)
}

// askBudget opens the budget checkpoint on j.
func (m *Machine) askBudget(j *jobs.Job, why string, c budget.Ceiling) []roleplan.Command {
	details := c.Answers()
	if fixing := m.follow.Fixing(&m.jobs, j); fixing != "" {
		details += "\n\n" + fixing
	}
	figures := func(cp *roleplan.Checkpoint) {
		cp.Ceiling, cp.Limit, cp.Spent, cp.TokenCeiling = c.Name, c.Limit, c.Spent, c.Tokens
	}
	if m.spec.Rules < queuedBudgetRules {
		// As the machine did then: the figures went to the open question,
		// even when it was another one.
		cmds := m.ask(j, roleplan.KindBudget, "budget reached: "+why, details, []string{roleplan.AnswerRaise, roleplan.AnswerStop})
		figures(m.open)
		return cmds
	}
	return m.ask(j, roleplan.KindBudget, "budget reached: "+why, details, []string{roleplan.AnswerRaise, roleplan.AnswerStop}, figures)
}

// budgetTurn is the turn of a budget checkpoint that waited while another
// question was open: the budget may have been raised meanwhile. If it no
// longer holds the job, the job goes on unasked; else the human is asked
// with the figures of now.
func (m *Machine) budgetTurn(cp *roleplan.Checkpoint) []roleplan.Command {
	j := m.jobs.Get(cp.Job)
	if _, why, c, held := m.budget.Dispatch(&m.jobs, j, m.spec.Rules >= turnRules); held {
		return m.askBudget(j, why, c)
	}
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "the budget was raised while it waited: " + j.ID + " goes on"}
	return append([]roleplan.Command{note}, m.goOn(j)...)
}

// budgetAnswered applies a raise (checked by Check): the ceiling is lifted
// and the held job starts again, unless the agent the budget interrupted
// had reported its work before it stopped: that work is not done again.
func (m *Machine) budgetAnswered(j *jobs.Job, cp *roleplan.Checkpoint, factor float64) []roleplan.Command {
	note := roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: m.budget.Raise(&m.jobs, cp, factor)}
	return append([]roleplan.Command{note}, m.goOn(j)...)
}

// goOn starts the job the budget held again, unless the agent the budget
// interrupted had reported its work before it stopped: that work is not
// done again.
func (m *Machine) goOn(j *jobs.Job) []roleplan.Command {
	interrupted := j.Interrupted
	j.Interrupted = false
	if interrupted && j.Reported != nil {
		j.Next = nil
		return m.route(j, j.Reported)
	}
	return m.run(j)
}
