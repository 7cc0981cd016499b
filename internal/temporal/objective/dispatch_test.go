package objective

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	sdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// roleWorkers are a fake Executor: each role's agent reports its
// work complete and exits, hive's checks pass, unless fault says
// otherwise for a command (by its job and attempt); it notes what it
// carried out.
type roleWorkers struct {
	mu    sync.Mutex
	done  []string
	kept  []roleplan.EventType // the folder's journal
	fault func(w Work, n int) ([]roleplan.Event, error, bool)
	count map[string]int
	// phases carries out the stages of a phase run (nil: none)
	phases func(w PhaseWork) (PhaseStep, error)
}

func (f *roleWorkers) Execute(ctx context.Context, w Work, emit func(roleplan.Event)) ([]roleplan.Event, error) {
	c := w.Command
	f.mu.Lock()
	if f.count == nil {
		f.count = map[string]int{}
	}
	key := string(c.Type) + " " + c.Job
	f.count[key]++
	n := f.count[key]
	f.done = append(f.done, fmt.Sprintf("%s %s %d", c.Type, c.Job, c.Attempt))
	f.mu.Unlock()
	if w.Workflow == "" || w.Run != 7 || w.State.Spec.Objective == "" {
		return nil, fmt.Errorf("the work of %s came without its workflow (%q), its run (%d) or its objective", key, w.Workflow, w.Run)
	}
	if f.fault != nil {
		if evs, err, ok := f.fault(w, n); ok {
			return evs, err
		}
	}
	ev := roleplan.Event{Job: c.Job, Attempt: c.Attempt}
	switch c.Type {
	case roleplan.CmdStartAgent:
		started := ev
		started.Type = roleplan.EvAgentStarted
		emit(started)
		report := ev
		report.Type, report.Report = roleplan.EvReport, &work.Report{Status: work.ReportComplete, Summary: "done"}
		emit(report)
		ev.Type = roleplan.EvAgentExited
	case roleplan.CmdBuild:
		ev.Type, ev.Tests = roleplan.EvBuilt, &roleplan.Tests{Command: "go build ./..."}
	case roleplan.CmdRunTests:
		ev.Type, ev.Tests = roleplan.EvTestsRan, &roleplan.Tests{Command: "go test ./...", Passed: 3}
	case roleplan.CmdLint:
		ev.Type = roleplan.EvLinted
	case roleplan.CmdStopAgent:
		return nil, nil // an earlier process's agent, gone
	default:
		return nil, fmt.Errorf("the fake workers do not carry out %s", c.Type)
	}
	return []roleplan.Event{ev}, nil
}

// Phase runs the phase of phases, when the test gives one.
func (f *roleWorkers) Phase(ctx context.Context, w PhaseWork, emit func(roleplan.Event)) (PhaseStep, error) {
	f.mu.Lock()
	f.done = append(f.done, fmt.Sprintf("phase %s %s %d", w.Stage, w.Command.Job, w.Command.Attempt))
	phases := f.phases
	f.mu.Unlock()
	if phases == nil {
		return PhaseStep{}, fmt.Errorf("the fake workers run no phase")
	}
	return phases(w)
}

// Record keeps the events the journal does not hold yet.
func (f *roleWorkers) Record(_ context.Context, r Records) error {
	evs, err := r.Events()
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.From > len(f.kept) {
		return fmt.Errorf("events from %d, the journal holds %d", r.From, len(f.kept))
	}
	for _, ev := range evs[len(f.kept)-r.From:] {
		f.kept = append(f.kept, ev.Type)
	}
	return nil
}

// Finish journals what the journal lacks and notes the end, with how
// many events the run's machine stepped.
func (f *roleWorkers) Finish(ctx context.Context, end End) (json.RawMessage, error) {
	evs, err := end.Events()
	if err != nil {
		return nil, err
	}
	if err := f.Record(ctx, Records{Run: end.Run, From: 0, Stepped: end.Stepped}); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.done = append(f.done, fmt.Sprintf("finish %d", end.Run))
	f.mu.Unlock()
	return json.Marshal(map[string]int{"events": len(evs)})
}

// journaled is how many events the journal holds.
func (f *roleWorkers) journaled() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.kept)
}

func (f *roleWorkers) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.done, "\n")
}

// objectiveEnv is a test environment with the objective's workflow and
// its activity carried out by exec.
func objectiveEnv(exec Executor) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	Register(env, nil, exec)
	return env
}

func quickSpec(t *testing.T) *roleplan.Spec {
	wf, ok := workflows.Builtin("quick")
	if !ok {
		t.Fatal("no quick workflow")
	}
	return &roleplan.Spec{Objective: "add a health check endpoint", Workflow: wf, AutoAnswer: true, NoInterview: true, Rules: roleplan.Rules}
}

var objectiveDispatch = &Dispatch{TaskQueue: "hive-test", Heartbeat: 30 * time.Second, Session: time.Hour, Command: 10 * time.Minute, Run: 7}

// finished runs the workflow of in to its end and returns its result.
func finished(t *testing.T, env *testsuite.TestWorkflowEnvironment, in Input) Result {
	t.Helper()
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// The quick workflow carried out by the workflow itself: each role's
// session, the build and the tests an activity, in the machine's order,
// and the workflow ends with the run.
func TestObjectiveCarriesItsCommandsOut(t *testing.T) {
	workers := &roleWorkers{}
	res := finished(t, objectiveEnv(workers), Input{Spec: quickSpec(t), Dispatch: objectiveDispatch})
	if res.State.Outcome != "complete" {
		t.Fatalf("outcome %q (%s)", res.State.Outcome, res.State.Reason)
	}
	want := "start-agent implementer 1\nbuild build 1\nstart-agent tester 1\nrun-tests tester 1\nfinish 7"
	if got := workers.log(); got != want {
		t.Errorf("carried out:\n%s\nwant:\n%s", got, want)
	}
	// Every event stepped goes to the finish: the run's start, and each
	// role's start, report and exit, the build and the tests.
	if got := string(res.Delivery); got != `{"events":9}` || res.DeliveryError != "" {
		t.Errorf("delivery %s (%s)", got, res.DeliveryError)
	}
	// The folder's journal has the run: every event, in order.
	var stepped []roleplan.EventType
	for _, a := range res.Answers {
		stepped = append(stepped, a.Stepped.Type)
	}
	if fmt.Sprint(workers.kept) != fmt.Sprint(stepped) {
		t.Errorf("the journal holds %v, the workflow stepped %v", workers.kept, stepped)
	}
}

// A worker lost in the middle of a role (its heartbeat stops): the
// session counts as an agent that crashed, and the machine starts the
// role again, told that the attempt before was cut off; the run
// completes.
func TestObjectiveRunsALostRoleAgain(t *testing.T) {
	workers := &roleWorkers{fault: func(w Work, n int) ([]roleplan.Event, error, bool) {
		if w.Command.Type == roleplan.CmdStartAgent && w.Command.Job == "implementer" && n == 1 {
			return nil, sdk.NewHeartbeatTimeoutError(), true
		}
		return nil, nil, false
	}}
	res := finished(t, objectiveEnv(workers), Input{Spec: quickSpec(t), Dispatch: objectiveDispatch})
	if res.State.Outcome != "complete" {
		t.Fatalf("outcome %q (%s)", res.State.Outcome, res.State.Reason)
	}
	if !strings.HasPrefix(workers.log(), "start-agent implementer 1\nstart-agent implementer 2\n") {
		t.Errorf("carried out:\n%s\nwant the implementer twice", workers.log())
	}
	var again *roleplan.Command
	for _, a := range res.Answers {
		for _, c := range a.Commands {
			if c.Type == roleplan.CmdStartAgent && c.Job == "implementer" && c.Attempt == 2 {
				again = &c
			}
		}
	}
	if again == nil || again.Context == nil || !strings.Contains(again.Context.Retry, "its worker was lost") || !again.Context.Interrupted {
		t.Errorf("the second attempt's context: %+v, want a retry that says its worker was lost, cut off", again)
	}
}

// A question is answered by a signal: the tests could not run, a human
// says retry, the tests run again.
func TestObjectiveTakesAnAnswer(t *testing.T) {
	workers := &roleWorkers{fault: func(w Work, n int) ([]roleplan.Event, error, bool) {
		if w.Command.Type == roleplan.CmdRunTests && n == 1 {
			return []roleplan.Event{{Type: roleplan.EvTestsRan, Job: w.Command.Job, Attempt: w.Command.Attempt,
				Tests: &roleplan.Tests{Command: "pnpm test", ExitCode: 127, Unrunnable: true, Output: "sh: 1: pnpm: not found"}}}, nil, true
		}
		return nil, nil, false
	}}
	env := objectiveEnv(workers)
	asked := false
	env.RegisterDelayedCallback(func() {
		snap, err := temporaltest.Query[roleplan.Snapshot](env, temporal.StateQuery)
		if err != nil || snap.Open == nil {
			t.Errorf("nothing asked an hour in (%v)", err)
			return
		}
		asked = true
		// The question reached the folder's journal at once, with every
		// event before it.
		workers.mu.Lock()
		kept := slices.Clone(workers.kept)
		workers.mu.Unlock()
		if len(kept) != 9 || kept[8] != roleplan.EvTestsRan {
			t.Errorf("the journal holds %v at the question", kept)
		}
		env.SignalWorkflow(EventSignal, roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: snap.Open.ID, Text: "retry"})
	}, time.Hour)
	res := finished(t, env, Input{Spec: quickSpec(t), Dispatch: objectiveDispatch, Limits: temporal.Limits{RecordEvery: 10 * time.Hour}}) // no batch goes but the question's
	if !asked || res.State.Outcome != "complete" {
		t.Fatalf("asked %v, outcome %q (%s)", asked, res.State.Outcome, res.State.Reason)
	}
	if !strings.HasSuffix(workers.log(), "run-tests tester 1\nrun-tests tester 1\nfinish 7") {
		t.Errorf("carried out:\n%s\nwant the tests twice", workers.log())
	}
}

// A run that waits for its provider's limit continues as new once its
// history is long: the next workflow run rebuilds the machine from the
// events stepped, sets the timer again, and goes on when it fires.
func TestObjectiveContinuesAsNewWhileItWaits(t *testing.T) {
	workers := &roleWorkers{fault: func(w Work, n int) ([]roleplan.Event, error, bool) {
		if w.Command.Type == roleplan.CmdStartAgent && w.Command.Job == "tester" && n == 1 {
			return []roleplan.Event{
				{Type: roleplan.EvLimited, Job: "tester", Attempt: w.Command.Attempt, Limit: &work.Limit{Kind: work.LimitUsage, Reset: time.Now().Add(time.Hour)}},
				{Type: roleplan.EvAgentExited, Job: "tester", Attempt: w.Command.Attempt, ExitCode: 1},
			}, nil, true
		}
		return nil, nil, false
	}}
	env := objectiveEnv(workers)
	env.ExecuteWorkflow(WorkflowName, Input{Spec: quickSpec(t), Dispatch: objectiveDispatch, Limits: temporal.Limits{MaxEvents: 3}})
	var next *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); err == nil || !errors.As(err, &next) {
		t.Fatalf("workflow: %v, want it to continue as new while it waits", err)
	}
	var in Input
	if err := temporaltest.DecodeInput(next, &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Held) != 1 || in.Held[0].Type != roleplan.CmdWake || in.Stepped == nil || in.Spec != nil {
		t.Fatalf("carried %+v, want the events stepped and the wake", in)
	}
	var recent []Answer
	if err := gunzipJSON(in.Recent, &recent); err != nil || len(recent) == 0 || recent[len(recent)-1].Seq != in.Seq {
		t.Fatalf("carried the answers %+v (%v), want the last of the first workflow run", recent, err)
	}
	env = objectiveEnv(workers)
	res := finished(t, env, in)
	if res.State.Outcome != "complete" || res.Answers[0].Seq != in.Seq+1 {
		t.Fatalf("outcome %q (%s), first answer %d after %d", res.State.Outcome, res.State.Reason, res.Answers[0].Seq, in.Seq)
	}
	// A follower that had not read the first workflow run's last answer
	// still gets it.
	v, err := env.QueryWorkflow(temporal.AnswersQuery, in.Seq-1)
	var late []Answer
	if err == nil {
		err = v.Get(&late)
	}
	if err != nil || len(late) == 0 || late[0].Seq != in.Seq {
		t.Fatalf("a follower one answer behind is given %+v (%v)", late, err)
	}
	if !strings.HasSuffix(workers.log(), "start-agent tester 1\nstart-agent tester 2\nrun-tests tester 2\nfinish 7") {
		t.Errorf("carried out:\n%s\nwant the tester again after the wait", workers.log())
	}
}

// A run resumed from its folder's journal: the workflow steps the events
// journaled again, then the resumption; the role that was at work when
// its host went starts again, and the journal is given only what is new.
func TestObjectiveResumesAJournaledRun(t *testing.T) {
	workers := &roleWorkers{kept: []roleplan.EventType{roleplan.EvStarted, roleplan.EvAgentStarted}}
	started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	journaled := []roleplan.Event{{Type: roleplan.EvStarted, Spec: quickSpec(t), Time: started},
		{Type: roleplan.EvAgentStarted, Job: "implementer", Attempt: 1, PID: 4242, Time: started.Add(time.Second)}}
	res := finished(t, objectiveEnv(workers), Input{Resume: journaled, Dispatch: objectiveDispatch})
	if res.State.Outcome != "complete" {
		t.Fatalf("outcome %q (%s)", res.State.Outcome, res.State.Reason)
	}
	// The earlier process's agent (pid 4242) is stopped, on the folder's
	// queue, beside the implementer's new attempt (activities run side by
	// side: the stop may be carried out after later commands), which is
	// the first session.
	carried := strings.Split(workers.log(), "\n")
	firstStart := slices.IndexFunc(carried, func(l string) bool { return strings.HasPrefix(l, "start-agent ") })
	if res.Answers[0].Event != roleplan.EvResumed || !slices.Contains(carried, "stop-agent implementer 1") || firstStart < 0 || carried[firstStart] != "start-agent implementer 2" {
		t.Errorf("first answer to %s; carried out:\n%s\nwant the old agent stopped and the implementer again", res.Answers[0].Event, workers.log())
	}
	if len(workers.kept) != len(journaled)+len(res.Answers) || workers.kept[2] != roleplan.EvResumed {
		t.Errorf("the journal holds %v", workers.kept)
	}
}

// phaseSpec is a run of architect and implementers: the architect's plans
// run as a phase.
func phaseSpec() *roleplan.Spec {
	wf := workflows.Workflow{Name: "phase", Steps: []workflows.Step{{Role: workflows.RoleArchitect}, {Role: workflows.RoleImplementer}}}
	return &roleplan.Spec{Objective: "add a health check endpoint", Workflow: wf, AutoAnswer: true, NoInterview: true, Rules: roleplan.Rules, PhaseDir: ".planning/phases/01-health"}
}

// budgetSpec is phaseSpec with a budget that the phase's plans reach.
func budgetSpec() *roleplan.Spec {
	spec := phaseSpec()
	spec.Budget.Tokens = 10000
	return spec
}

// phaseEnv is objectiveEnv with the phases' workflow and their plans'
// activity, carried out by plans.
func phaseEnv(exec Executor, plans temporal.Executor) *testsuite.TestWorkflowEnvironment {
	env := objectiveEnv(exec)
	env.RegisterWorkflowWithOptions(temporal.RunWorkflow, workflow.RegisterOptions{Name: temporal.RunWorkflowName})
	env.RegisterActivityWithOptions((&temporal.Activities{Exec: plans}).Command, activity.RegisterOptions{Name: temporal.CommandActivity})
	return env
}

// phaseWorkers ready a phase of plans as its start stage, and end it as
// the phase's end says.
func phaseWorkers(t *testing.T, plans ...string) func(w PhaseWork) (PhaseStep, error) {
	return func(w PhaseWork) (PhaseStep, error) {
		c := w.Command
		switch w.Stage {
		case PhaseStart:
			start := phase.Event{Type: phase.EvRunStarted, Spec: temporaltest.PhaseSpec(plans...), Version: phase.Version}
			d := &temporal.Dispatch{TaskQueue: "hive-test-plans", Heartbeat: time.Minute, Session: time.Hour, Command: time.Minute}
			return PhaseStep{ID: fmt.Sprintf("phase-%s-%d", c.Job, c.Attempt), Input: &temporal.RunInput{Dispatch: d, Start: &start}}, nil
		case PhaseEnded:
			if w.Snapshot == nil || w.ID == "" {
				t.Errorf("the phase's end came without its workflow (%q) or its state", w.ID)
				return PhaseStep{}, errors.New("no state")
			}
			ok := w.Snapshot.Outcome == phase.OutcomeComplete
			return PhaseStep{Events: []roleplan.Event{{Type: roleplan.EvPhaseDone, Job: c.Job, Attempt: c.Attempt, OK: ok, Reason: string(w.Snapshot.Outcome)}}}, nil
		}
		return PhaseStep{}, fmt.Errorf("no %s stage here", w.Stage)
	}
}

// The implementers' phase runs as a child workflow of the run's: a
// worker readies it, the engine runs its plans on the plans' workers,
// each plan's end is told to the run's followers, and a worker says how
// it ended; the run completes.
func TestObjectiveRunsItsPhaseAsAChildWorkflow(t *testing.T) {
	workers := &roleWorkers{phases: phaseWorkers(t, "01-01", "01-02", "01-03")}
	plans := &spendingPlans{}
	res := finished(t, phaseEnv(workers, plans), Input{Spec: phaseSpec(), Dispatch: objectiveDispatch})
	if res.State.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %q (%s)\n%s", res.State.Outcome, res.State.Reason, workers.log())
	}
	want := "start-agent architect 1\nlint architect 1\nphase start implementers 1\nphase ended implementers 1\nfinish 7"
	if got := workers.log(); got != want {
		t.Errorf("carried out:\n%s\nwant:\n%s", got, want)
	}
	if ran := plans.carried(); len(ran) != 6 {
		t.Errorf("the plans' workers carried out %v; want a session and a spot-check per plan", ran)
	}
	var told []string
	for _, a := range res.Answers {
		if a.Event == roleplan.EvNote {
			told = append(told, a.Stepped.Job+": "+a.Stepped.Text)
		}
	}
	if got := strings.Join(told, "\n"); got != "implementers: plan 01-01 complete\nimplementers: plan 01-02 complete\nimplementers: plan 01-03 complete" &&
		got != "implementers: plan 01-01 complete\nimplementers: plan 01-03 complete\nimplementers: plan 01-02 complete" {
		t.Errorf("the run's followers were told:\n%s", got)
	}
}

// spendingPlans are the plans' workers of a phase whose every plan spends
// 4,000 tokens and completes; they note what they carried out.
type spendingPlans struct {
	mu  sync.Mutex
	ran []string
}

func (p *spendingPlans) carried() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ran)
}

func (p *spendingPlans) Execute(_ context.Context, c phase.Command, _ string, _ phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	p.mu.Lock()
	p.ran = append(p.ran, string(c.Type)+" "+c.Plan)
	p.mu.Unlock()
	ev := phase.Event{Plan: c.Plan, Attempt: c.Attempt}
	switch c.Type {
	case phase.CmdStartAgent:
		started, used := ev, ev
		started.Type = phase.EvAgentStarted
		used.Type, used.InputTokens, used.OutputTokens = phase.EvUsage, 3000, 1000
		emit(started)
		emit(used)
		done, exited := ev, ev
		done.Type, exited.Type = phase.EvPlanComplete, phase.EvAgentExited
		return []phase.Event{done, exited}, nil
	case phase.CmdSpotCheck:
		ev.Type, ev.OK = phase.EvSpotChecked, true
		return []phase.Event{ev}, nil
	}
	return nil, nil
}

// The phase stops at its share of the run's budget: the run asks its
// human, who raises the budget, and the same phase workflow goes on with
// the raise (the answer goes to it) instead of a new one starting. A
// human who stops the run instead ends the phase's workflow with it.
func TestObjectiveRaisesItsStoppedPhase(t *testing.T) {
	t.Run("raise", func(t *testing.T) {
		workers, res := phaseStoppedAtItsBudget(t, "raise 100000")
		if res.State.Outcome != roleplan.OutcomeComplete {
			t.Fatalf("outcome %q (%s)\n%s", res.State.Outcome, res.State.Reason, workers.log())
		}
		want := "start-agent architect 1\nlint architect 1\nphase start implementers 1\nphase stopped implementers 1\nphase ended implementers 2\nfinish 7"
		if got := workers.log(); got != want {
			t.Errorf("carried out:\n%s\nwant:\n%s", got, want)
		}
		wentOn := false
		for _, a := range res.Answers {
			wentOn = wentOn || (a.Event == roleplan.EvNote && a.Stepped.Text == "the phase's plans go on in Temporal workflow phase-implementers-1")
		}
		if !wentOn {
			t.Errorf("the run's followers were not told the phase went on: %+v", res.Answers)
		}
	})
	t.Run("stop", func(t *testing.T) {
		workers, res := phaseStoppedAtItsBudget(t, "stop")
		if !res.State.Finished || res.State.Outcome == roleplan.OutcomeComplete {
			t.Fatalf("outcome %q (%s)\n%s", res.State.Outcome, res.State.Reason, workers.log())
		}
		want := "start-agent architect 1\nlint architect 1\nphase start implementers 1\nphase stopped implementers 1\nfinish 7"
		if got := workers.log(); got != want {
			t.Errorf("carried out:\n%s\nwant:\n%s", got, want)
		}
	})
}

// budgetPhases are phaseWorkers whose phase may spend what its command
// allots, and whose stop there the machine hears as the phase over its
// budget; ready, when given, changes how a phase starts.
func budgetPhases(t *testing.T, ready func(*PhaseStep)) func(w PhaseWork) (PhaseStep, error) {
	phases := phaseWorkers(t, "01-01", "01-02", "01-03")
	return func(w PhaseWork) (PhaseStep, error) {
		c := w.Command
		switch w.Stage {
		case PhaseStart:
			step, err := phases(w)
			step.Input.Start.Spec.Budget.Tokens = c.BudgetTokens
			if ready != nil {
				ready(&step)
			}
			return step, err
		case PhaseStopped:
			cp := w.Snapshot.BudgetCheckpoint()
			if cp == nil {
				return PhaseStep{}, fmt.Errorf("the phase stopped at %+v, not its budget", w.Snapshot.Queue)
			}
			return PhaseStep{Events: []roleplan.Event{{Type: roleplan.EvPhaseDone, Job: c.Job, Attempt: c.Attempt, OverBudget: true, Reason: cp.Details,
				PhaseRun: -5, Spend: w.Snapshot.Spent}}}, nil
		}
		return phases(w)
	}
}

// phaseStoppedAtItsBudget runs architect and implementers with a budget
// that the phase's plans reach, and answers the run's question with
// answer.
func phaseStoppedAtItsBudget(t *testing.T, answer string) (*roleWorkers, Result) {
	workers := &roleWorkers{phases: budgetPhases(t, nil)}
	env := phaseEnv(workers, &spendingPlans{})
	var asked roleplan.CheckpointKind
	env.RegisterDelayedCallback(func() {
		snap, err := temporaltest.Query[roleplan.Snapshot](env, temporal.StateQuery)
		if err != nil || snap.Open == nil {
			t.Errorf("nothing asked an hour in (%v): %s", err, workers.log())
			return
		}
		asked = snap.Open.Kind
		env.SignalWorkflow(EventSignal, roleplan.Event{Type: roleplan.EvAnswer, Checkpoint: snap.Open.ID, Text: answer})
	}, time.Hour)
	res := finished(t, env, Input{Spec: budgetSpec(), Dispatch: objectiveDispatch})
	if asked != roleplan.KindBudget {
		t.Errorf("the run asked %q", asked)
	}
	return workers, res
}

// askingPlans are the plans' workers of a phase whose plan 01-02, in the
// first phase run, stops at a checkpoint only a human may answer (its
// agent exits, waiting); every other session completes.
type askingPlans struct {
	mu     sync.Mutex
	asked  bool
	starts []string
}

func (p *askingPlans) Execute(_ context.Context, c phase.Command, _ string, _ phase.Snapshot, emit func(phase.Event)) ([]phase.Event, error) {
	ev := phase.Event{Plan: c.Plan, Attempt: c.Attempt}
	switch c.Type {
	case phase.CmdStartAgent:
		p.mu.Lock()
		p.starts = append(p.starts, c.Plan)
		ask := c.Plan == "01-02" && !p.asked
		p.asked = p.asked || ask
		p.mu.Unlock()
		started, exited := ev, ev
		started.Type, exited.Type = phase.EvAgentStarted, phase.EvAgentExited
		emit(started)
		if ask {
			asks := ev
			asks.Type, asks.Checkpoint = phase.EvCheckpoint, &phase.Checkpoint{Type: "human-verify", Done: 0, Total: 1}
			emit(asks)
			return []phase.Event{exited}, nil
		}
		done := ev
		done.Type = phase.EvPlanComplete
		return []phase.Event{done, exited}, nil
	case phase.CmdSpotCheck:
		ev.Type, ev.OK = phase.EvSpotChecked, true
		return []phase.Event{ev}, nil
	}
	return nil, nil
}

// A phase stopped for a human at an implementer's challenge of the plans:
// the architect plans again, and the fresh phase run closes the stopped
// child workflow and starts another, whose plans run; the run completes.
func TestObjectiveReplacesAChallengedPhase(t *testing.T) {
	phases := phaseWorkers(t, "01-01", "01-02", "01-03")
	workers := &roleWorkers{phases: func(w PhaseWork) (PhaseStep, error) {
		c := w.Command
		if w.Stage == PhaseStopped {
			r := &work.Report{Status: work.ReportChallenge, ChallengedAgent: workflows.RoleArchitect, Issue: "plan 01-02 cannot be verified as written", Summary: "challenge"}
			return PhaseStep{Events: []roleplan.Event{{Type: roleplan.EvPhaseDone, Job: c.Job, Attempt: c.Attempt, Report: r, Reason: "01-02 asks"}}}, nil
		}
		return phases(w)
	}}
	plans := &askingPlans{}
	res := finished(t, phaseEnv(workers, plans), Input{Spec: phaseSpec(), Dispatch: objectiveDispatch})
	if res.State.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %q (%s)\n%s", res.State.Outcome, res.State.Reason, workers.log())
	}
	want := "start-agent architect 1\nlint architect 1\nphase start implementers 1\nphase stopped implementers 1\n" +
		"start-agent architect 2\nlint architect 2\nphase start implementers 2\nphase ended implementers 2\nfinish 7"
	if got := workers.log(); got != want {
		t.Errorf("carried out:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(plans.starts, " "); strings.Count(got, "01-01") != 2 || strings.Count(got, "01-02") != 2 {
		t.Errorf("the plans' sessions: %s; want each plan in both phase runs", got)
	}
}
