package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/index"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/testrun"
	"github.com/hivectl/hive/internal/work"
)

// PhaseRunner runs the implementers' phase of a pipeline run: here, with
// the runner (LocalPhases), or on the workers of a distributed backend.
// It resumes the phase's unfinished run unless w.Fresh, and returns what
// runner.Run does: a NeedsHumanError when the phase stops for a human.
type PhaseRunner interface {
	RunPhase(ctx context.Context, w PhaseWork) (runner.Result, error)
}

// PhaseWork is one run of the implementers' phase.
type PhaseWork struct {
	// Options are the runner's, with no journal: the PhaseRunner keeps
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

// LocalPhases runs phases here, each with the journal in its worktree,
// so that a resumed pipeline resumes the phase where it was.
type LocalPhases struct{}

// RunPhase implements PhaseRunner.
func (LocalPhases) RunPhase(ctx context.Context, w PhaseWork) (runner.Result, error) {
	o := w.Options
	j, err := journal.Open(filepath.Join(o.Repo.Root, ".hive", "journal.db"))
	if err != nil {
		return runner.Result{}, err
	}
	defer j.Close()
	if !w.Fresh {
		if err := raisePhase(j, o.Phase.Dir, o.Agents.Budget, o.Now()); err != nil {
			return runner.Result{}, err
		}
	}
	o.Journal = j
	return runner.Run(ctx, o)
}

// PhaseOptions are the runner's options for the implementers' phase in
// the folder phase of the tree dir, with o's agents and env: the base of
// a run's own (runPhase), and what a distributed backend's workers carry
// the phase's commands out with.
func PhaseOptions(o Options, dir, phase string, env []string) (runner.Options, error) {
	ph, err := plan.LoadPhase(dir, phase)
	if err != nil {
		return runner.Options{}, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var fallback agent.Launcher
	if o.Fallback != nil {
		fallback = withEnv{o.Fallback, env}
	}
	return runner.Options{
		Repo: o.Repo.At(dir), Phase: ph, Now: o.Now, After: o.After,
		Schedule: runner.Schedule{MaxConcurrent: max(o.MaxConcurrent, 1), Dynamic: true},
		// A merge conflict between implementers goes to the comb, as in
		// execute-phase; the comb role later checks the merged result.
		Agents: runner.Agents{Launcher: withEnv{o.launcher(pipeline.RoleImplementer), env}, Stall: o.Stall,
			Roles:  map[string]agent.Launcher{"comb": withEnv{o.launcher(pipeline.RoleComb), env}},
			Prices: o.Prices, Ladder: o.Ladders[pipeline.RoleImplementer], Guard: o.Guard,
			OnLimit: o.OnLimit, Fallback: fallback},
		Human: runner.Human{AutoAnswer: true},
	}, nil
}

// onFallback has the phase's agents start on the fallback agent, where a
// usage limit switched the run to it before the phase began: the phase
// then waits at a limit of its own, having nothing else to switch to.
func onFallback(a *runner.Agents) {
	if a.Fallback == nil {
		return // said when an agent starts: none is configured now
	}
	a.Launcher, a.Roles["comb"], a.Ladder = a.Fallback, a.Fallback, nil
	if a.OnLimit == work.OnLimitFallback {
		a.OnLimit = work.OnLimitWait
	}
}

// runPhase executes the architect's plans in the run's worktree:
// implementers in parallel worktrees, merged by hive into the run's
// branch, here or on a distributed backend's workers (Options.Phases).
//
// warnings are what the project's memory tells every implementer.
func (s *executor) runPhase(ctx context.Context, c pipeline.Command, dir string, warnings []string) pipeline.Event {
	ev := pipeline.Event{Type: pipeline.EvPhaseDone, Job: c.Job, Attempt: c.Attempt}
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
	opts.Observer, opts.Git = phaseObserver{s}, runner.Git{Worktrees: true, WorktreeRoot: root, Setup: s.o.Setup}
	// After a challenge the architect changed the plans: a new phase run.
	fresh := c.Context != nil && c.Context.Rechecking != nil
	opts.Schedule.Fresh = fresh
	opts.Agents.Brief = s.planBrief(ctx, warnings)
	if c.Fallback {
		onFallback(&opts.Agents)
	}
	// A new phase run may spend the phase's allotment of the budget.
	opts.Agents.Budget = engine.Budget{Ceilings: work.Ceilings{USD: c.BudgetUSD, Tokens: c.BudgetTokens}, PlanUSD: s.o.PlanUSD, TaskUSD: s.o.TaskUSD}
	phases := s.o.Phases
	if phases == nil {
		phases = LocalPhases{}
	}
	res, err := phases.RunPhase(ctx, PhaseWork{Options: opts, Run: s.run, Job: c.Job, Attempt: c.Attempt, Fresh: fresh, Env: env})
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
		return pipeline.Event{Type: pipeline.EvLimited, Job: c.Job, Attempt: c.Attempt, Limit: &l}
	case errors.As(err, &needs) && BudgetCheckpoint(res.Snapshot) != nil:
		ev.OverBudget, ev.Reason = true, BudgetCheckpoint(res.Snapshot).Details
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
		if r := p.Report; r != nil && r.Status == work.ReportChallenge {
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

// BudgetCheckpoint is the phase run's open budget checkpoint, if it has one.
func BudgetCheckpoint(snap engine.Snapshot) *engine.Checkpoint {
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
func raisePhase(j journal.Journal, phase string, allot engine.Budget, now time.Time) error {
	if allot.USD <= 0 && allot.Tokens <= 0 {
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
	cp := BudgetCheckpoint(snap)
	if cp == nil {
		return nil
	}
	text := RaiseText(snap, allot)
	if text == "" {
		return nil
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

// RaiseText is the answer to a phase run's budget checkpoint that lets it
// spend what it has spent in snap plus allot; "" when allot is nothing.
func RaiseText(snap engine.Snapshot, allot engine.Budget) string {
	switch {
	case allot.USD <= 0 && allot.Tokens <= 0:
		return ""
	case snap.Budget.USD <= 0:
		return fmt.Sprintf("raise %d", snap.Spent.Tokens()+allot.Tokens)
	}
	return fmt.Sprintf("raise %.4f", snap.Spent.CostUSD+allot.USD)
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
type phaseObserver struct{ s *executor }

func (o phaseObserver) Resumed(journal.Run, engine.Snapshot) {}
func (o phaseObserver) Event(_ engine.Event, snap engine.Snapshot) {
	states := make([]PlanState, len(snap.Plans))
	for i, p := range snap.Plans {
		states[i] = PlanState{ID: p.Spec.ID, State: p.State}
	}
	if o.s.plans != nil {
		o.s.plans(states)
	}
}
func (o phaseObserver) Command(c engine.Command, _ engine.Snapshot) {
	if c.Type == engine.CmdPlanState && c.State.Final() {
		o.s.note(pipeline.PhaseJob, fmt.Sprintf("plan %s %s", c.Plan, c.State))
	}
}
func (o phaseObserver) Note(plan, text string) { o.s.note(pipeline.PhaseJob, plan+": "+text) }

// runTests runs the project's tests in the run's worktree.
func (s *executor) runTests(ctx context.Context, c pipeline.Command) pipeline.Event {
	t, note := s.testsIn(ctx, s.running("tests")) // as the result is shown
	if note != "" {
		s.note(c.Job, note)
	}
	return pipeline.Event{Type: pipeline.EvTestsRan, Job: c.Job, Attempt: c.Attempt, Tests: t}
}

// running says on the run's output that job's command starts, which
// may take minutes (a project's whole build) before its result.
func (s *executor) running(job string) func(cmd string) {
	return func(cmd string) { s.note(job, "running "+cmd) }
}

// testsIn runs the project's tests in the run's worktree, telling started
// (when not nil) the command first; note says why there were none to run.
// No test run is None, never a pass.
func (s *executor) testsIn(ctx context.Context, started func(cmd string)) (*pipeline.Tests, string) {
	cmd, err := testrun.Find(s.dir, s.o.TestCommand)
	switch {
	case errors.Is(err, testrun.ErrNoTests):
		return &pipeline.Tests{None: true, Output: err.Error()}, err.Error()
	case err != nil:
		// A project file the agents broke is a failure, never a pass.
		return &pipeline.Tests{ExitCode: -1, Output: err.Error()}, ""
	}
	if started != nil {
		started(cmd.String())
	}
	res, err := testrun.Run(ctx, s.dir, cmd)
	if err != nil {
		res.ExitCode = -1
		res.Output = err.Error()
	}
	t := &pipeline.Tests{Command: res.Command, ExitCode: res.ExitCode, Passed: res.Passed, Failed: res.Failed,
		Failing: res.Failing, Output: res.Output, None: res.NoTests}
	if t.None {
		return t, cmd.String() + " found no test to run; to run others, set commands.test in .hive/config.json"
	}
	s.unrunnable(t)
	return t, ""
}

// unrunnable marks a result whose command could not run at all (a shell's
// "command not found", a program that could not start) and says what is
// likely missing: the run's worktree is a fresh checkout, without what git
// does not carry, such as the project's installed dependencies.
func (s *executor) unrunnable(t *pipeline.Tests) {
	t.Unrunnable = t.ExitCode == 127 || t.ExitCode == -1
	if mod := missingModule(t); mod != "" {
		// python3 -m pytest without pytest: no test ran, none failed;
		// an implementer sent to fix that would fix nothing.
		t.Unrunnable = true
		t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is not installed for %s: install the project's test dependencies (pip install %s, or the project's own: uv sync, poetry install, pip install -e '.[dev]'), then answer retry; or set commands.test in .planning/config.json", mod, firstWord(t.Command), mod)
		return
	}
	runner, _, _ := strings.Cut(strings.TrimSpace(t.Command), " ")
	if prog := missingProgram(t.Output); prog != "" && (prog == firstWord(t.Command) || prog == runner) {
		// Not the worktree's fault: the command's program itself is not
		// here (a program its scripts call is a missing dependency),
		// whatever the exit code its runner gave (uv's is 2).
		t.Unrunnable = true
		where, how := "here (not on PATH)", "install it"
		switch {
		case runner != prog:
			where, how = "in the project's "+runner+" environment", "add it to the project's dev dependencies"
		case prog == "pnpm" || prog == "yarn":
			how = "install it (`corepack enable` does, with Node)"
		case prog == "bun":
			how = "install it (bun.sh)"
		}
		t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is not installed %s: %s, then answer retry; or set commands.build and commands.test in .planning/config.json to commands this machine has", prog, where, how)
		return
	}
	if !t.Unrunnable || strings.TrimSpace(s.o.Setup.Command) != "" {
		return
	}
	install, example := "install what it needs", "npm ci"
	if _, err := os.Stat(filepath.Join(s.dir, "package.json")); err == nil {
		example = installCommand(testrun.PackageManager(s.dir))
		if _, err := os.Stat(filepath.Join(s.dir, "node_modules")); err != nil {
			install = "run " + example
		}
	}
	t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is a fresh checkout of your commits, without what git does not carry (installed dependencies): %s there, then answer retry; to have every run do it, set workflow.worktree_setup.command in .planning/config.json (%q, say)", s.dir, install, example)
}

// missingModule is the module of a `python -m MODULE` command that the
// interpreter says it does not have, "" otherwise.
func missingModule(t *pipeline.Tests) string {
	f := strings.Fields(t.Command)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-m" && strings.HasPrefix(path.Base(f[0]), "python") {
			if strings.Contains(t.Output, "No module named "+f[i+1]) {
				return f[i+1]
			}
			return ""
		}
	}
	return ""
}

// firstWord is the program a command line starts: the first word, or
// the program an environment runner runs ("uv run pytest": pytest).
func firstWord(cmd string) string {
	f := strings.Fields(cmd)
	switch {
	case len(f) > 2 && f[1] == "run" && (f[0] == "uv" || f[0] == "poetry" || f[0] == "pipenv"):
		return f[2]
	case len(f) > 0:
		return f[0]
	}
	return ""
}

// installCommand installs a JavaScript project's dependencies as its
// lockfile has them, with its package manager.
func installCommand(manager string) string {
	switch manager {
	case "pnpm":
		return "pnpm install --frozen-lockfile"
	case "yarn":
		return "yarn install --frozen-lockfile"
	case "bun":
		return "bun install --frozen-lockfile"
	}
	return "npm ci"
}

// missingProgramRE finds the program that could not start: exec's "not
// found in $PATH", or a shell's "command not found".
var missingProgramRE = regexp.MustCompile(`exec: "([^"]+)": executable file not found|(?:^|\s)([\w.+-]+): (?:command )?not found|Failed to spawn: ` + "`" + `([\w.+-]+)` + "`" + `|Command not found: ([\w.+-]+)`)

// missingProgram is the program a check's output says is not installed,
// "" when it says none.
func missingProgram(output string) string {
	if m := missingProgramRE.FindStringSubmatch(output); m != nil {
		return m[1] + m[2] + m[3] + m[4]
	}
	return ""
}

// build runs the project's build in the run's worktree, for a build step.
// A project with nothing to build skips the step, with a note.
func (s *executor) build(ctx context.Context, c pipeline.Command, base string) pipeline.Event {
	ev := pipeline.Event{Type: pipeline.EvBuilt, Job: c.Job, Attempt: c.Attempt}
	// How much the run changed, as hive counts it (routing's input).
	changed, _ := s.changes(ctx, base)
	ev.Changed = len(changed)
	t, note := s.buildIn(ctx, s.running(c.Job))
	if note != "" {
		s.note(c.Job, note)
	}
	ev.Tests = t
	return ev
}

// buildIn runs the project's build in the run's worktree, telling started
// (when not nil) the command first; note says why there was nothing to
// build. Nothing to build is None, never a pass.
func (s *executor) buildIn(ctx context.Context, started func(cmd string)) (*pipeline.Tests, string) {
	cmd, ok := testrun.FindBuild(s.dir, s.o.BuildCommand)
	if !ok {
		why := "no build command found (go.mod, Cargo.toml, a package.json build script, a Makefile build target): nothing to build; to build, set commands.build in .hive/config.json"
		return &pipeline.Tests{None: true, Output: why}, why
	}
	if started != nil {
		started(cmd.String())
	}
	res, err := testrun.Run(ctx, s.dir, cmd)
	if err != nil {
		res.ExitCode, res.Output = -1, err.Error()
	}
	t := &pipeline.Tests{Command: cmd.String(), ExitCode: res.ExitCode, Output: res.Output}
	s.unrunnable(t)
	return t, ""
}

// facts are what the workflow's conditions ask of the repository, from
// its index; without one every condition holds, and the run says why.
func (s *executor) facts() map[string]bool {
	ix, err := index.Build(s.dir)
	if err != nil {
		s.o.Observer.Note("", "the repository's index: "+err.Error()+": every step's condition is taken to hold")
		return nil
	}
	return map[string]bool{pipeline.CondHasFrontend: ix.HasFrontend, pipeline.CondHasTests: ix.HasTests}
}
