package temporal

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// fakeWorker plays a worker's executors: each agent finishes its plan at
// once (or, in its first attempt at a plan in hang, works until it is
// stopped), and a spot-check passes when the plan's agent finished. It
// records the commands it carried out.
type fakeWorker struct {
	mu      sync.Mutex
	hang    map[string]bool
	release chan struct{} // ends a hung session
	ran     []string
	done    map[string]bool // the plans whose agent finished: the disk says so
	// asks: a hung session of the plan first stops at a checkpoint
	asks map[string]bool
}

func (f *fakeWorker) Execute(ctx context.Context, c phase.Command, _ string, _ phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	f.mu.Lock()
	f.ran = append(f.ran, string(c.Type)+" "+c.Plan)
	hang := f.hang[c.Plan] && c.Type == phase.CmdStartAgent && c.Attempt == 1
	f.mu.Unlock()
	ev := func(t phase.EventType) phase.Event { return phase.Event{Type: t, Plan: c.Plan, Attempt: c.Attempt} }
	switch c.Type {
	case phase.CmdStartAgent:
		emit(phase.Event{Type: phase.EvAgentStarted, Plan: c.Plan, Attempt: c.Attempt, PID: 100 + c.Attempt})
		if hang && f.asks[c.Plan] {
			emit(phase.Event{Type: phase.EvCheckpoint, Plan: c.Plan, Attempt: c.Attempt, Checkpoint: &phase.Checkpoint{Type: "human-verify", Done: 0, Total: 1}})
		}
		if hang {
			select { // a session that works until its worker dies or it is stopped
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-f.release:
				return nil, errors.New("released at the test's end")
			}
		}
		f.mu.Lock()
		f.done[c.Plan] = true
		f.mu.Unlock()
		return []phase.Event{ev(phase.EvPlanComplete), ev(phase.EvAgentExited)}, nil
	case phase.CmdSpotCheck:
		check := ev(phase.EvSpotChecked)
		f.mu.Lock()
		check.OK = f.done[c.Plan]
		f.mu.Unlock()
		if !check.OK {
			check.Reason = "no SUMMARY"
		}
		return []phase.Event{check}, nil
	}
	return nil, nil
}

// TestDispatchRunsAPhaseOnWorkers: a dispatching workflow carries the
// engine's commands out as activities (agent sessions, spot-checks) and
// ends by itself once its run is finished, every plan complete.
func TestDispatchRunsAPhaseOnWorkers(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	w := &fakeWorker{done: map[string]bool{}}
	env.RegisterActivityWithOptions((&Activities{Exec: w}).Command, activity.RegisterOptions{Name: CommandActivity})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(EventSignal, phase.Event{Type: phase.EvRunStarted, Time: start, Spec: temporaltest.PhaseSpec("01-01", "01-02", "01-03"), Attended: true})
	}, time.Second)
	env.ExecuteWorkflow(RunWorkflowName, RunInput{Dispatch: &Dispatch{TaskQueue: "q", Heartbeat: time.Minute, Session: time.Hour, Command: time.Minute}})
	res, snap := finalState(t, env)
	if !snap.Finished || snap.Outcome != "complete" {
		t.Fatalf("the run ended %v %q; answers %+v", snap.Finished, snap.Outcome, res.Answers)
	}
	for _, p := range snap.Plans {
		if p.State != phase.Complete || p.Attempt != 1 {
			t.Errorf("%s: %s after %d attempts", p.Spec.ID, p.State, p.Attempt)
		}
	}
	if len(w.ran) != 6 {
		t.Errorf("the worker carried out %v; want a session and a spot-check per plan", w.ran)
	}
}

// TestDispatchNamesItsPhase: the commands of a workflow whose Dispatch
// names its phase and tree (hive run's implementers) reach the executor
// that the worker's For gives for that Where; a worker of one phase
// refuses them, naming the phase.
func TestDispatchNamesItsPhase(t *testing.T) {
	where := Where{Dir: "/work/runs/run-3", Phase: ".planning/phases/04-health", Env: []string{"HIVE_PIPELINE_ATTEMPT=1"}}
	d := &Dispatch{TaskQueue: "q", Heartbeat: time.Minute, Session: time.Hour, Command: time.Minute, Where: &where}
	w := &fakeWorker{done: map[string]bool{}}
	var asked []Where
	acts := &Activities{For: func(got Where) (Executor, error) {
		asked = append(asked, got)
		return w, nil
	}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
	env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
	env.RegisterActivityWithOptions(acts.Command, activity.RegisterOptions{Name: CommandActivity})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(EventSignal, phase.Event{Type: phase.EvRunStarted, Time: start, Spec: temporaltest.PhaseSpec("01-01"), Attended: true})
	}, time.Second)
	env.ExecuteWorkflow(RunWorkflowName, RunInput{Dispatch: d})
	_, snap := finalState(t, env)
	if snap.Outcome != "complete" || len(asked) != 2 || !slices.EqualFunc(asked, []Where{where, where}, func(a, b Where) bool {
		return a.Dir == b.Dir && a.Phase == b.Phase && slices.Equal(a.Env, b.Env)
	}) {
		t.Fatalf("the run ended %q; For was asked for %+v, want the session's and the spot-check's %+v", snap.Outcome, asked, where)
	}
	// A worker of one phase refuses the command, and says why.
	one := suite.NewTestActivityEnvironment()
	one.RegisterActivityWithOptions((&Activities{Exec: w}).Command, activity.RegisterOptions{Name: CommandActivity})
	_, err := one.ExecuteActivity(CommandActivity, Work{Command: phase.Command{Type: phase.CmdSpotCheck, Plan: "01-01"}, Where: &where})
	if err == nil || !strings.Contains(err.Error(), "this worker serves one phase") || !strings.Contains(err.Error(), where.Phase) {
		t.Fatalf("a worker of one phase given another's command: %v", err)
	}
}

// finalState is the result of the workflow that ran in env, and the
// engine's state in it.
func finalState(t *testing.T, env *testsuite.TestWorkflowEnvironment) (RunResult, phase.Snapshot) {
	t.Helper()
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res RunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		t.Fatal(err)
	}
	return res, final.Snapshot()
}

// TestDispatchTakesALostWorkerForACrash, on a real Temporal server: a
// session whose worker stops heartbeating counts as an agent that exited;
// the engine checks the disk and starts a new attempt, which finishes the
// plan. The session's first event reached the run while it worked.
func TestDispatchTakesALostWorkerForACrash(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	w := &fakeWorker{hang: map[string]bool{"01-01": true}, release: release, done: map[string]bool{}}
	c, queue := devServer(t, func(c client.Client, wk worker.Worker) {
		// Beats of an hour: the hung session is silent, as on a dead worker.
		wk.RegisterActivityWithOptions((&Activities{Exec: w, Client: c, Beat: time.Hour}).Command, activity.RegisterOptions{Name: CommandActivity})
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res, snap := dispatchRun(ctx, t, c, queue, "hive-run-lost-worker", 2*time.Second, phase.Event{Type: phase.EvRunStarted, Time: start, Spec: temporaltest.PhaseSpec("01-01"), Attended: true})
	p := snap.Plans[0]
	if p.State != phase.Complete || p.Attempt != 2 {
		t.Fatalf("01-01: %s after %d attempts; want complete on the second; answers %+v", p.State, p.Attempt, res.Answers)
	}
	var seen []string
	for _, a := range res.Answers {
		seen = append(seen, string(a.Event))
	}
	// The hung session's start was signalled while it worked; its loss
	// came as an exit (pid 101: attempt 1's).
	want := []string{"run-started", "agent-started", "agent-exited", "spot-checked", "agent-started", "plan-complete", "agent-exited", "spot-checked"}
	if strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", seen, want)
	}
}

// TestDispatchCancelsMessagesToALostSession, on a real Temporal server:
// the answer to a live session's checkpoint goes to the worker that holds
// the session, on a queue of its own, and that worker dies before it takes
// it. Once the session counts as lost the message is cancelled, and the
// run finishes on a new attempt; before, it waited for the message forever.
func TestDispatchCancelsMessagesToALostSession(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	w := &fakeWorker{hang: map[string]bool{"01-01": true}, asks: map[string]bool{"01-01": true}, release: release, done: map[string]bool{}}
	c, queue := devServer(t, func(c client.Client, wk worker.Worker) {
		// Beats of an hour: the hung session is silent, as on a dead
		// worker, whose own queue (Host) nobody polls.
		wk.RegisterActivityWithOptions((&Activities{Exec: w, Client: c, Host: "a-worker-that-died", Beat: time.Hour}).Command, activity.RegisterOptions{Name: CommandActivity})
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	spec := temporaltest.PhaseSpec("01-01")
	spec.Team = true
	in := RunInput{Dispatch: &Dispatch{TaskQueue: queue, Heartbeat: 3 * time.Second, Session: time.Hour, Command: time.Minute}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-run-lost-message", TaskQueue: queue}, RunWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	start := phase.Event{Type: phase.EvRunStarted, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Spec: spec, Attended: true}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, start); err != nil {
		t.Fatal(err)
	}
	for {
		snap, err := State(ctx, c, run)
		if err == nil && len(snap.Queue) > 0 {
			answer := phase.Event{Type: phase.EvAnswer, Plan: "01-01", Text: "approved", By: "hive answer", CheckpointID: snap.Queue[0].ID}
			if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), EventSignal, answer); err != nil {
				t.Fatal(err)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no checkpoint to answer: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	var res RunResult
	if err := Result(ctx, run, &res); err != nil {
		t.Fatalf("the run did not end once its session was lost (a message to the dead worker held it?): %v", err)
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		t.Fatal(err)
	}
	if p := final.Snapshot().Plans[0]; p.State != phase.Complete || p.Attempt != 2 {
		t.Fatalf("01-01: %s after %d attempts; want complete on the second", p.State, p.Attempt)
	}
}

// slowSession is a worker whose session of 01-01 works for a while (real
// time) before it finishes its plan; every other command is fakeWorker's.
type slowSession struct {
	*fakeWorker
	work time.Duration
}

func (s slowSession) Execute(ctx context.Context, c phase.Command, since string, snap phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	if c.Type == phase.CmdStartAgent && c.Plan == "01-01" {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.work):
		}
	}
	return s.fakeWorker.Execute(ctx, c, since, snap, emit)
}

// TestDispatchDrainsALongHistory: a dispatching workflow whose history
// has grown past drainHistory while a session works starts no more work;
// once the session ends it continues as new, and the next workflow run
// carries out the work held back first, to the run's end.
func TestDispatchDrainsALongHistory(t *testing.T) {
	w := &fakeWorker{done: map[string]bool{}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := &phase.RunSpec{Phase: "01", MaxConcurrent: 1, Retries: 1, Plans: []phase.PlanSpec{{ID: "01-01", Tasks: 1}, {ID: "01-02", Tasks: 1}}}
	var suite testsuite.WorkflowTestSuite
	run := func(in RunInput, signals []phase.Event) (*testsuite.TestWorkflowEnvironment, error) {
		env := suite.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Minute) // the SDK's 3 s is wall-clock time, which a loaded machine overruns
		env.SetCurrentHistoryLength(200)
		env.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: RunWorkflowName})
		env.RegisterActivityWithOptions((&Activities{Exec: slowSession{w, 3 * time.Second}}).Command, activity.RegisterOptions{Name: CommandActivity})
		for i, ev := range signals {
			env.RegisterDelayedCallback(func() { env.SignalWorkflow(EventSignal, ev) }, time.Duration(i+1)*time.Millisecond)
		}
		env.ExecuteWorkflow(RunWorkflowName, in)
		return env, env.GetWorkflowError()
	}
	signals := []phase.Event{{Type: phase.EvRunStarted, Time: start, Spec: spec, Attended: true}}
	for i := range 4 {
		signals = append(signals, phase.Event{Type: phase.EvUsage, Plan: "01-01", Attempt: 1, Time: start.Add(time.Duration(i+1) * time.Second), InputTokens: 10})
	}
	dispatch := &Dispatch{TaskQueue: "q", Heartbeat: time.Minute, Session: time.Hour, Command: time.Minute}
	_, err := run(RunInput{Dispatch: dispatch, Limits: Limits{MaxEvents: 3, DrainHistory: 100}}, signals)
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want a continue-as-new once the session ended, got %v", err)
	}
	var next RunInput
	if err := temporaltest.DecodeInput(can, &next); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, c := range next.Held {
		held = append(held, string(c.Type)+" "+c.Plan)
	}
	w.mu.Lock()
	ran := slices.Clone(w.ran)
	w.mu.Unlock()
	if !slices.Equal(ran, []string{"start-agent 01-01"}) || !slices.Contains(held, "spot-check 01-01") {
		t.Fatalf("the first workflow run carried out %v and held %v; want the session alone out, its spot-check held", ran, held)
	}
	env, _ := run(next, nil)
	res, snap := finalState(t, env)
	if snap.Outcome != "complete" || snap.Count(phase.Complete) != 2 {
		t.Fatalf("after the drain the run ended %q with %d plans complete; answers %+v", snap.Outcome, snap.Count(phase.Complete), res.Answers)
	}
	if p := snap.Plans[0]; p.InputTokens != 40 || p.Attempt != 1 {
		t.Fatalf("01-01: %d input tokens in %d attempts; want the 40 signalled while it worked, in one", p.InputTokens, p.Attempt)
	}
}
