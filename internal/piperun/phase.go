package piperun

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/checks"
	"github.com/hivectl/hive/internal/piperun/evaluation"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// PhaseOptions are the runner's options for the implementers' phase in
// the folder phase of the tree dir, with o's agents and env: the base of
// a run's own (runPhase), and what a distributed backend's workers carry
// the phase's commands out with.
func PhaseOptions(o Options, dir, phase string, env []string) (runner.Options, error) {
	ph, err := load.Phase(dir, phase)
	if err != nil {
		return runner.Options{}, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var fallback agent.Launcher
	if o.Fallback != nil {
		fallback = phaserun.WithEnv{Launcher: o.Fallback, Env: env}
	}
	return runner.Options{
		Repo: o.Repo.At(dir), Phase: ph, Now: o.Now, After: o.After,
		Schedule: runner.Schedule{MaxConcurrent: max(o.MaxConcurrent, 1), Dynamic: true},
		// A merge conflict between implementers goes to the comb, as in
		// execute-phase; the comb role later checks the merged result.
		Agents: runner.Agents{Launcher: phaserun.WithEnv{Launcher: o.launcher(workflows.RoleImplementer), Env: env}, Stall: o.Stall,
			Roles:  map[string]agent.Launcher{"comb": phaserun.WithEnv{Launcher: o.launcher(workflows.RoleComb), Env: env}},
			Prices: o.Prices, Ladder: o.Ladders[workflows.RoleImplementer], Guard: o.Guard,
			OnLimit: o.OnLimit, Fallback: fallback},
		Human: runner.Human{AutoAnswer: true},
	}, nil
}

// runPhase executes the architect's plans in the run's worktree:
// implementers in parallel worktrees, merged by hive into the run's
// branch, here or on a distributed backend's workers (Options.Phases).
//
// warnings are what the project's memory tells every implementer.
func (s *executor) runPhase(ctx context.Context, c roleplan.Command, dir string, warnings []string) roleplan.Event {
	ev := roleplan.Event{Type: roleplan.EvPhaseDone, Job: c.Job, Attempt: c.Attempt}
	env := []string{fmt.Sprintf("HIVE_PIPELINE_ATTEMPT=%d", c.Attempt)}
	opts, err := PhaseOptions(s.o, s.dir, dir, env)
	if err != nil {
		ev.Reason = err.Error()
		return ev
	}
	root := s.o.WorktreeRoot
	if root != "" {
		root = filepath.Join(root, fmt.Sprintf("run-%d-plans", s.run.ID))
	}
	opts.Observer, opts.Git = phaseObserver{s}, integration.Git{Worktrees: true, WorktreeRoot: root, Setup: s.o.Setup}
	// After a challenge the architect changed the plans: a new phase run.
	fresh := c.Context != nil && c.Context.Rechecking != nil
	opts.Schedule.Fresh = fresh
	opts.Agents.Brief = s.curator().PlanBrief(ctx, warnings)
	if c.Fallback {
		phaserun.OnFallback(&opts.Agents)
	}
	// A new phase run may spend the phase's allotment of the budget.
	opts.Agents.Budget = phase.Budget{Ceilings: work.Ceilings{USD: c.BudgetUSD, Tokens: c.BudgetTokens}, PlanUSD: s.o.PlanUSD, TaskUSD: s.o.TaskUSD}
	phases := s.o.Phases
	if phases == nil {
		phases = phaserun.Local{}
	}
	res, err := phases.RunPhase(ctx, phaserun.Work{Options: opts, Run: s.run, Job: c.Job, Attempt: c.Attempt, Fresh: fresh, Env: env})
	return phaserun.Ended(c, res, err)
}

// phaseObserver passes the phase run's notes on as the implementers'.
type phaseObserver struct{ s *executor }

func (o phaseObserver) Resumed(journal.Run, phase.Snapshot) {}
func (o phaseObserver) Event(_ phase.Event, snap phase.Snapshot) {
	states := make([]PlanState, len(snap.Plans))
	for i, p := range snap.Plans {
		states[i] = PlanState{ID: p.Spec.ID, State: p.State}
	}
	if o.s.plans != nil {
		o.s.plans(states)
	}
}
func (o phaseObserver) Command(c phase.Command, _ phase.Snapshot) {
	if c.Type == phase.CmdPlanState && c.State.Final() {
		o.s.note(roleplan.PhaseJob, fmt.Sprintf("plan %s %s", c.Plan, c.State))
	}
}
func (o phaseObserver) Note(plan, text string) { o.s.note(roleplan.PhaseJob, plan+": "+text) }

// checks are hive's own checks in the run's worktree, with the project's
// commands.
func (s *executor) checks() checks.Worktree {
	return checks.Worktree{Dir: s.dir, TestCommand: s.o.TestCommand, BuildCommand: s.o.BuildCommand, SetupCommand: s.o.Setup.Command, Note: s.note}
}

// evaluator judges the run's roles in its worktree: the evaluators are
// Options.Evaluator's agents, else the role's launcher's.
func (s *executor) evaluator() *evaluation.Evaluator {
	l := s.o.Evaluator
	if l == nil {
		l = s.launcher(workflows.RoleEvaluator)
	}
	return &evaluation.Evaluator{Repo: s.o.Repo, Journal: s.o.Journal, Run: s.run.ID, Checks: s.checks(), Home: s.o.Home,
		Launcher: l, Model: s.o.EvaluatorModel, Timeout: s.o.EvaluatorTimeout, Prices: s.o.Prices}
}

// facts are what the workflow's conditions ask of the repository, from
// its index; without one every condition holds, and the run says why.
func (s *executor) facts() map[string]bool {
	ix, err := index.Build(s.dir)
	if err != nil {
		s.o.Observer.Note("", "the repository's index: "+err.Error()+": every step's condition is taken to hold")
		return nil
	}
	return map[string]bool{workflows.CondHasFrontend: ix.HasFrontend, workflows.CondHasTests: ix.HasTests}
}
