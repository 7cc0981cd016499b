package phaserun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/work"
)

// Runner runs the implementers' phase of a pipeline run: here, with
// the runner (Local), or on the workers of a distributed backend.
// It resumes the phase's unfinished run unless w.Fresh, and returns what
// runner.Run does: a NeedsHumanError when the phase stops for a human.
type Runner interface {
	RunPhase(ctx context.Context, w Work) (runner.Result, error)
}

// Work is one run of the implementers' phase.
type Work struct {
	// Options are the runner's, with no journal: the Runner keeps
	// the phase's. Options.Repo is the pipeline run's worktree.
	Options runner.Options
	Run     journal.Run // the pipeline run
	Job     string
	Attempt int
	// Fresh: the architect changed the plans after a challenge, so the
	// phase runs anew (the plans already merged are done and do not run
	// again); otherwise an unfinished run of it resumes, its budget
	// checkpoint answered with the raise in Options.Agents.Budget.
	Fresh bool
	// Env is what the phase's agents get besides their own environment.
	Env []string
}

// Local runs phases here, each with the journal in its worktree,
// so that a resumed pipeline resumes the phase where it was.
type Local struct{}

// RunPhase implements Runner.
func (Local) RunPhase(ctx context.Context, w Work) (runner.Result, error) {
	o := w.Options
	j, err := journal.Open(filepath.Join(o.Repo.Root, ".hive", "journal.db"))
	if err != nil {
		return runner.Result{}, err
	}
	defer j.Close()
	o.Journal, o.Human.Raised = j, !w.Fresh
	return runner.Run(ctx, o)
}

// OnFallback has the phase's agents start on the fallback agent, where a
// usage limit switched the run to it before the phase began: the phase
// then waits at a limit of its own, having nothing else to switch to.
func OnFallback(a *runner.Agents) {
	if a.Fallback == nil {
		return // said when an agent starts: none is configured now
	}
	a.Launcher, a.Roles["comb"], a.Ladder = a.Fallback, a.Fallback, nil
	if a.OnLimit == work.OnLimitFallback {
		a.OnLimit = work.OnLimitWait
	}
}

// Ended is the event that ends c, the run of the implementers' phase, for
// the machine, from what the Runner returned: the phase done (its plans,
// their spend, a challenge of an implementer's for the architect), over
// its budget, waiting at a usage limit, or stopped for a human.
func Ended(c roleplan.Command, res runner.Result, err error) roleplan.Event {
	ev := roleplan.Event{Type: roleplan.EvPhaseDone, Job: c.Job, Attempt: c.Attempt}
	if res.Snapshot.Started {
		// What the phase run has spent in all: the machine counts what
		// is new since its last report of this run.
		ev.PhaseRun, ev.Spend = res.Run.ID, res.Snapshot.Spent
	}
	ev.Fallback = c.Fallback || res.Snapshot.Fallback
	var needs *runner.NeedsHumanError
	var stopped *work.StoppedAtLimit
	switch {
	case errors.As(err, &stopped):
		// The phase stopped at a usage limit (limits.on_limit stop): the
		// run waits for it too, and stops; the phase goes on from its
		// journal once the wait is over.
		l := work.Limit{Kind: stopped.Wait.Kind, Text: stopped.Wait.Text}
		if !stopped.Wait.Guessed {
			l.Reset = stopped.Wait.Until
		}
		return roleplan.Event{Type: roleplan.EvLimited, Job: c.Job, Attempt: c.Attempt, Limit: &l}
	case errors.As(err, &needs) && res.Snapshot.BudgetCheckpoint() != nil:
		ev.OverBudget, ev.Reason = true, res.Snapshot.BudgetCheckpoint().Details
		return ev
	case errors.As(err, &needs):
		// An implementer's challenge of its plan is the architect's to
		// answer; any other question stops the phase for the human.
		for _, p := range res.Snapshot.Plans {
			if p.Open != nil && p.Open.Type == phase.TypeChallenge && p.Report != nil {
				ev.Report = p.Report
			}
		}
		ev.Reason = needs.Error()
		return ev
	case err != nil:
		ev.Reason = err.Error()
		return ev
	}
	for _, p := range res.Snapshot.Plans {
		if r := p.Report; r != nil && r.Status == work.ReportChallenge {
			ev.Report = r
		}
		ev.Plans = append(ev.Plans, roleplan.PlanRun{ID: p.Spec.ID, State: p.State, Started: p.Started, Finished: p.Finished, Spend: p.Spend})
	}
	ev.OK = res.Snapshot.Outcome == phase.OutcomeComplete || res.NothingToDo
	if !ev.OK {
		ev.Reason = fmt.Sprintf("the phase ended %s: %d of %d plans complete", res.Snapshot.Outcome,
			res.Snapshot.Count(phase.Complete), len(res.Snapshot.Plans))
	}
	return ev
}

// WithEnv gives the agents of a launcher more environment: Env.
type WithEnv struct {
	agent.Launcher
	Env []string
}

// Start implements agent.Launcher.
func (l WithEnv) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	spec.Env = append(append([]string(nil), spec.Env...), l.Env...)
	return l.Launcher.Start(ctx, spec, sink)
}
