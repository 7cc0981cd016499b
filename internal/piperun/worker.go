package piperun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/piperun/roleagent"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
)

// Begin starts a run whose machine runs elsewhere (a distributed
// backend's workflow steps it): as Run does, it creates the run in
// o.Journal, its branch and its worktree, and returns the run and the
// spec its machine starts with. The run's commands are then a Worker's.
func Begin(ctx context.Context, o Options) (journal.Run, roleplan.Spec, error) {
	e := &executor{o: o.withDefaults()}
	spec, err := e.create(ctx)
	return e.run, spec, err
}

// Worker carries out the commands of runs whose machine runs elsewhere
// (Begin), one command at a time, each in its run's worktree, which the
// workers of the project's folder share. It keeps nothing between
// commands: what one needs comes with it (Work).
type Worker struct {
	// Options are the folder's: its repository and journal (where the
	// run's shell records go: the memory's warnings, the context given,
	// a computed confidence; nil for a worker away from the run's folder,
	// whose records are dropped), its agents, its commands and the
	// phase's runner. Objective, Workflow and Resume are not used.
	Options Options
	// Notes is told what the commands met worth telling (nil: nobody).
	Notes func(job, text string)
}

// ForRun is w with the phase runner of one run.
func (w *Worker) ForRun(phases phaserun.Runner) *Worker {
	run := *w
	run.Options.Phases = phases
	return &run
}

// Work is one command of a run for a Worker.
type Work struct {
	// Run is the run's number in its folder's journal: it names the run's
	// worktree, its logs and its refs.
	Run     int64
	Command roleplan.Command
	// State is the machine's state when the command was given.
	State roleplan.Snapshot
	// Branch is the branch the run's worktree is on, when not the one its
	// spec names (a worktree of a clone, made from the run's branch on a
	// git remote).
	Branch string
}

// RunWorktree is where run's worktree is, for o.
func RunWorktree(o Options, run int64) (string, error) { return worktreeDir(o, run) }

// Execute carries w's command out and returns the events it ends with; a
// role's session hands those it meets on the way to emit as they happen
// (its start, its tool calls, its usage, its report, its exit), and ends
// its agent when ctx ends. What the command notes goes to emit too, as
// roleplan.EvNote, for whoever follows the run. Events leave Time zero, for the machine's host
// to stamp.
func (w *Worker) Execute(ctx context.Context, wk Work, emit func(roleplan.Event)) ([]roleplan.Event, error) {
	o := w.Options.withDefaults()
	c, snap := wk.Command, wk.State
	dir, err := worktreeDir(o, wk.Run)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("run %d's worktree %s is not on this worker (hive run's workers share the project's folder): %w", wk.Run, dir, err)
	}
	run := journal.Run{ID: wk.Run}
	if o.Journal != nil {
		if r, err := runjournal.Find(o.Journal, wk.Run); err == nil {
			run = r // with when it started, which names its phases' workflows
		}
	}
	e := &executor{o: o, run: run, dir: dir, branch: cmp.Or(wk.Branch, snap.Spec.Branch)}
	turns := make(chan struct{}, 1) // a role's turn has ended
	e.send = func(ev roleplan.Event) {
		switch ev.Type {
		case noteEvent:
			if w.Notes != nil {
				w.Notes(ev.Job, ev.Text)
			}
			emit(ev) // for whoever follows the run
		case roleagent.TurnEnded:
			select {
			case turns <- struct{}{}:
			default:
			}
		default:
			ev.Time = time.Time{}
			emit(ev)
		}
	}
	one := func(ev roleplan.Event) []roleplan.Event { return []roleplan.Event{ev} }
	switch c.Type {
	case roleplan.CmdStartAgent:
		return nil, w.session(ctx, e, c, snap, turns, emit)
	case roleplan.CmdLint:
		return one(roleplan.Event{Type: roleplan.EvLinted, Job: c.Job, Attempt: c.Attempt, Errors: e.checks().Lint(snap.Spec.PhaseDir)}), nil
	case roleplan.CmdRunPhase:
		return one(e.runPhase(ctx, c, snap.Spec.PhaseDir, e.curator().Warnings(c, snap))), nil
	case roleplan.CmdRunTests:
		return one(e.checks().RunTests(ctx, c)), nil
	case roleplan.CmdBuild:
		return one(e.checks().RunBuild(ctx, c, snap.Spec.Base)), nil
	case roleplan.CmdEvaluate:
		return one(e.evaluator().Evaluate(ctx, c, snap)), nil
	case roleplan.CmdDeliver:
		return one(e.deliverer().OpenPullRequest(ctx, c, snap)), nil
	case roleplan.CmdWatch:
		ev, ok := e.deliverer().WatchPullRequest(ctx, c)
		if !ok {
			return nil, errors.Join(errors.New("the pull request's watch ended before it found anything"), ctx.Err())
		}
		return one(ev), nil
	case roleplan.CmdPush:
		return one(e.deliverer().PushFix(ctx, c)), nil
	case roleplan.CmdStopAgent:
		// An agent of the process that ran the run before, on this
		// machine: ended if it is still there (its exit is the machine's
		// to know already).
		if c.PID > 0 && agent.IsAgentOf(c.PID, c.Job) {
			agent.KillGroup(c.PID)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("a worker carries out no %s command", c.Type)
}

// session runs c's role agent until it exits: its turn ended (the agent
// then exits, its input closed), it fell silent past the stall timeout
// (ended), or ctx ended (its turn is stopped, so that its usage is still
// reported). Its events go to emit, its exit among them.
func (w *Worker) session(ctx context.Context, e *executor, c roleplan.Command, snap roleplan.Snapshot, turns <-chan struct{}, emit func(roleplan.Event)) error {
	sess, err := e.starter().Start(ctx, c, snap)
	if err != nil {
		emit(roleplan.Event{Type: roleplan.EvAgentExited, Job: c.Job, Attempt: c.Attempt, ExitCode: -1, Reason: err.Error()})
		return nil
	}
	emit(roleplan.Event{Type: roleplan.EvAgentStarted, Job: c.Job, Attempt: c.Attempt, PID: sess.PID()})
	watchdog := time.NewTicker(max(min(e.o.Stall/4, time.Second), 10*time.Millisecond))
	defer watchdog.Stop()
	stalled := false
	for {
		select {
		case <-sess.Done(): // its exit has been emitted by then
			return nil
		case <-turns:
			go sess.Stop(stopGrace)
		case <-watchdog.C:
			if !stalled {
				stalled = roleagent.EndSilent(sess, e.o.Now(), e.o.Stall, func(text string) { e.note(c.Job, text) })
			}
		case <-ctx.Done():
			sess.StopTurn(stopGrace)
			select {
			case <-sess.Done():
			case <-time.After(stopGrace + time.Second):
				sess.Kill()
				<-sess.Done()
			}
			return nil
		}
	}
}

// Finish ends a run whose machine ran elsewhere, in the project's folder
// (o's repository is the user's): events are what its machine stepped, in
// order; those the folder's journal does not hold yet are journaled
// there, so that the run's report, its memory and hive status read it as
// a local run's. Then the run is delivered as a local run is (merged into
// the user's branch, left on its branch, pushed) and its end recorded. A
// run the journal holds finished (Finish tried again) is only read back.
func (w *Worker) Finish(ctx context.Context, run int64, events []roleplan.Event) (Result, error) {
	o := w.Options.withDefaults()
	r, err := runjournal.Find(o.Journal, run)
	if err != nil {
		return Result{}, err
	}
	if !r.Finished.IsZero() {
		m, err := runjournal.Replay(o.Journal, r)
		if err != nil {
			return Result{}, err
		}
		return Result{Run: r, Snapshot: m.Snapshot(), Branch: runjournal.RunBranch(o.Journal, r),
			Notes: []string{fmt.Sprintf("run %d had ended: hive report %d tells how it was delivered", r.ID, r.ID)}}, nil
	}
	if err := runjournal.Record(o.Journal, run, 0, events); err != nil {
		return Result{}, err
	}
	if r, err = runjournal.Find(o.Journal, run); err != nil {
		return Result{}, err
	}
	m, err := runjournal.Replay(o.Journal, r)
	if err != nil {
		return Result{}, err
	}
	snap := m.Snapshot()
	dir, err := worktreeDir(o, run)
	if err != nil {
		return Result{}, err
	}
	e := &executor{o: o, run: r, dir: dir, branch: snap.Spec.Branch}
	e.send = func(ev roleplan.Event) {
		if ev.Type == noteEvent && w.Notes != nil {
			w.Notes(ev.Job, ev.Text)
		}
	}
	return e.finish(ctx, snap), nil
}
