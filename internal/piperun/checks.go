package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testrun"
)

// runPhase executes the architect's plans in the run's worktree with the
// runner: implementers in parallel worktrees, merged by hive into the
// run's branch. The phase keeps its own journal in the worktree, so a
// resumed pipeline resumes the phase where it was.
//
// warnings are what the project's memory tells every implementer.
func (s *shell) runPhase(ctx context.Context, c pipeline.Command, dir string, warnings []string) pipeline.Event {
	ev := pipeline.Event{Type: pipeline.EvPhaseDone, Job: c.Job, Attempt: c.Attempt}
	repo := s.o.Repo.At(s.dir)
	ph, err := plan.LoadPhase(s.dir, dir)
	if err != nil {
		ev.Reason = err.Error()
		return ev
	}
	j, err := journal.Open(filepath.Join(s.dir, ".hive", "journal.db"))
	if err != nil {
		ev.Reason = err.Error()
		return ev
	}
	defer j.Close()
	root := s.o.WorktreeRoot
	if root != "" {
		root = filepath.Join(root, fmt.Sprintf("run-%d-plans", s.run.ID))
	}
	// After a challenge the architect changed the plans: a new phase run
	// (the plans already merged are done and do not run again).
	fresh := c.Context != nil && c.Context.Rechecking != nil
	if !fresh {
		if err := raisePhase(j, ph.Dir, c, s.o.Now()); err != nil {
			ev.Reason = err.Error()
			return ev
		}
	}
	env := []string{fmt.Sprintf("HIVE_PIPELINE_ATTEMPT=%d", c.Attempt)}
	launcher := withEnv{s.launcher(pipeline.RoleImplementer), env}
	comb := withEnv{s.launcher(pipeline.RoleComb), env}
	res, err := runner.Run(ctx, runner.Options{
		Repo: repo, Phase: ph, Journal: j, Observer: phaseObserver{s}, Now: s.o.Now,
		Schedule: runner.Schedule{MaxConcurrent: max(s.o.MaxConcurrent, 1), Dynamic: true, Fresh: fresh},
		// A merge conflict between implementers goes to the comb, as in
		// execute-phase; the comb role later checks the merged result.
		// A new phase run may spend the phase's allotment of the budget.
		Agents: runner.Agents{Launcher: launcher, Stall: s.o.Stall, Roles: map[string]agent.Launcher{"comb": comb}, Brief: s.planBrief(ctx, warnings),
			Prices: s.o.Prices, Ladder: s.o.Ladders[pipeline.RoleImplementer],
			Budget: engine.Budget{USD: c.BudgetUSD, Tokens: c.BudgetTokens, PlanUSD: s.o.PlanUSD, TaskUSD: s.o.TaskUSD},
			Guard:  s.o.Guard},
		Human: runner.Human{AutoAnswer: true},
		Git:   runner.Git{Worktrees: true, WorktreeRoot: root},
	})
	if res.Snapshot.Started {
		// What the phase run has spent in all: the machine counts what
		// is new since its last report of this run.
		ev.PhaseRun, ev.Spend = res.Run.ID, res.Snapshot.Spent
	}
	var needs *runner.NeedsHumanError
	switch {
	case errors.As(err, &needs) && budgetOpen(res.Snapshot) != nil:
		ev.OverBudget, ev.Reason = true, budgetOpen(res.Snapshot).Details
		return ev
	case errors.As(err, &needs):
		// An implementer's challenge of its plan is the architect's to
		// answer; any other question stops the phase for the human.
		for _, p := range res.Snapshot.Plans {
			if p.Open != nil && p.Open.Type == engine.TypeChallenge && p.Report != nil {
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
		if r := p.Report; r != nil && r.Status == engine.ReportChallenge {
			ev.Report = r
		}
		ev.Plans = append(ev.Plans, pipeline.PlanRun{ID: p.Spec.ID, State: p.State, Started: p.Started, Finished: p.Finished, Spend: p.Spend})
	}
	ev.OK = res.Snapshot.Outcome == engine.OutcomeComplete || res.NothingToDo
	if !ev.OK {
		ev.Reason = fmt.Sprintf("the phase ended %s: %d of %d plans complete", res.Snapshot.Outcome,
			res.Snapshot.Count(engine.Complete), len(res.Snapshot.Plans))
	}
	return ev
}

// budgetOpen is the phase run's open budget checkpoint, if it has one.
func budgetOpen(snap engine.Snapshot) *engine.Checkpoint {
	for i := range snap.Queue {
		if snap.Queue[i].Plan == engine.BudgetID {
			return &snap.Queue[i]
		}
	}
	return nil
}

// raisePhase answers the budget checkpoint of the phase's unfinished run,
// if it waits at one, with the raise the human gave the pipeline: the
// phase run may then spend what it has spent plus the phase's new
// allotment.
func raisePhase(j journal.Journal, phase string, c pipeline.Command, now time.Time) error {
	if c.BudgetUSD <= 0 && c.BudgetTokens <= 0 {
		return nil
	}
	last, ok, err := j.LatestRun(phase)
	if err != nil || !ok || !last.Finished.IsZero() {
		return err
	}
	eng, err := runner.Replay(j, last)
	if err != nil {
		return err
	}
	snap := eng.Snapshot()
	cp := budgetOpen(snap)
	if cp == nil {
		return nil
	}
	text := fmt.Sprintf("raise %.4f", snap.Spent.CostUSD+c.BudgetUSD)
	if snap.Budget.USD <= 0 {
		text = fmt.Sprintf("raise %d", snap.Spent.Tokens()+c.BudgetTokens)
	}
	ev := engine.Event{Type: engine.EvAnswer, Time: now.UTC(), Plan: engine.BudgetID, CheckpointID: cp.ID, Text: text, By: "hive run"}
	if _, err := eng.Step(ev); err != nil {
		return nil // the raise does not lift this run's ceiling: it stops there again, for the human
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = j.Append(last.ID, string(ev.Type), ev.Time, payload)
	return err
}

// withEnv gives the agents of a launcher more environment.
type withEnv struct {
	agent.Launcher
	env []string
}

func (l withEnv) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	spec.Env = append(append([]string(nil), spec.Env...), l.env...)
	return l.Launcher.Start(ctx, spec, sink)
}

// phaseObserver passes the phase run's notes on as the implementers'.
type phaseObserver struct{ s *shell }

func (o phaseObserver) Resumed(journal.Run, engine.Snapshot) {}
func (o phaseObserver) Event(_ engine.Event, snap engine.Snapshot) {
	states := make([]PlanState, len(snap.Plans))
	for i, p := range snap.Plans {
		states[i] = PlanState{ID: p.Spec.ID, State: p.State}
	}
	select {
	case o.s.plansc <- states:
	case <-o.s.done:
	}
}
func (o phaseObserver) Command(c engine.Command, _ engine.Snapshot) {
	if c.Type == engine.CmdPlanState && c.State.Final() {
		o.s.note(pipeline.PhaseJob, fmt.Sprintf("plan %s %s", c.Plan, c.State))
	}
}
func (o phaseObserver) Note(plan, text string) { o.s.note(pipeline.PhaseJob, plan+": "+text) }

// runTests runs the project's tests in the run's worktree.
func (s *shell) runTests(ctx context.Context, c pipeline.Command) pipeline.Event {
	t, note := s.testsIn(ctx)
	if note != "" {
		s.note(c.Job, note)
	}
	return pipeline.Event{Type: pipeline.EvTestsRan, Job: c.Job, Attempt: c.Attempt, Tests: t}
}

// testsIn runs the project's tests in the run's worktree; note says why
// there were none to run.
func (s *shell) testsIn(ctx context.Context) (*pipeline.Tests, string) {
	cmd, err := testrun.Detect(s.dir)
	switch {
	case errors.Is(err, testrun.ErrNoTests):
		return &pipeline.Tests{Command: "(none)", Output: err.Error()}, err.Error() + ": the tester's word is taken"
	case err != nil:
		// A project file the agents broke is a failure, never a pass.
		return &pipeline.Tests{Command: "(none)", ExitCode: -1, Output: err.Error()}, ""
	}
	res, err := testrun.Run(ctx, s.dir, cmd)
	if err != nil {
		res.ExitCode = -1
		res.Output = err.Error()
	}
	return &pipeline.Tests{Command: res.Command, ExitCode: res.ExitCode, Passed: res.Passed, Failed: res.Failed,
		Failing: res.Failing, Output: res.Output,
		// A shell's "command not found", or a program that could not start.
		Unrunnable: res.ExitCode == 127 || res.ExitCode == -1}, ""
}

// build runs the project's build in the run's worktree, for a build step.
// A project with nothing to build passes, with a note.
func (s *shell) build(ctx context.Context, c pipeline.Command, base string) pipeline.Event {
	ev := pipeline.Event{Type: pipeline.EvBuilt, Job: c.Job, Attempt: c.Attempt}
	// How much the run changed, as hive counts it (routing's input).
	changed, _ := s.changes(ctx, base)
	ev.Changed = len(changed)
	t, note := s.buildIn(ctx)
	if note != "" {
		s.note(c.Job, note)
	}
	ev.Tests = t
	return ev
}

// buildIn runs the project's build in the run's worktree; note says why
// there was nothing to build.
func (s *shell) buildIn(ctx context.Context) (*pipeline.Tests, string) {
	cmd, ok := testrun.DetectBuild(s.dir)
	if !ok {
		return &pipeline.Tests{Command: "(none)"}, "no build command found (go.mod, Cargo.toml, a package.json build script, a Makefile build target): nothing to build"
	}
	res, err := testrun.Run(ctx, s.dir, cmd)
	if err != nil {
		res.ExitCode, res.Output = -1, err.Error()
	}
	return &pipeline.Tests{Command: cmd.String(), ExitCode: res.ExitCode, Output: res.Output,
		Unrunnable: res.ExitCode == 127 || res.ExitCode == -1}, ""
}

// facts are what the workflow's conditions ask of the repository, from
// its index; without one every condition holds, and the run says why.
func (s *shell) facts() map[string]bool {
	ix, err := index.Build(s.dir)
	if err != nil {
		s.o.Observer.Note("", "the repository's index: "+err.Error()+": every step's condition is taken to hold")
		return nil
	}
	return map[string]bool{pipeline.CondHasFrontend: ix.HasFrontend, pipeline.CondHasTests: ix.HasTests}
}
