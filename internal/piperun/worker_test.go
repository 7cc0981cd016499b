package piperun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/temporal/objective"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// onTemporal hands the commands of a run's workflow to a Worker.
type onTemporal struct{ w *Worker }

func (a onTemporal) Execute(ctx context.Context, ow objective.Work, emit func(roleplan.Event)) ([]roleplan.Event, error) {
	return a.w.Execute(ctx, Work{Run: ow.Run, Command: ow.Command, State: ow.State}, emit)
}

// Phase runs the whole phase here, in its start (the Worker's phase runner
// is the local one): what the workflow makes of a phase's stages is
// temporal's and runworker's to test.
func (a onTemporal) Phase(ctx context.Context, pw objective.PhaseWork, emit func(roleplan.Event)) (objective.PhaseStep, error) {
	if pw.Stage != objective.PhaseStart {
		return objective.PhaseStep{}, fmt.Errorf("a local phase has no %s stage", pw.Stage)
	}
	evs, err := a.Execute(ctx, pw.Work, emit)
	return objective.PhaseStep{Events: evs}, err
}

func (a onTemporal) Record(_ context.Context, r objective.Records) error {
	evs, err := r.Events()
	if err != nil {
		return err
	}
	return runjournal.Record(a.w.Options.Journal, r.Run, r.From, evs)
}

func (a onTemporal) Finish(ctx context.Context, end objective.End) (json.RawMessage, error) {
	evs, err := end.Events()
	if err != nil {
		return nil, err
	}
	res, err := a.w.Finish(ctx, end.Run, evs)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// tree lists what branch holds: each file with its blob.
func tree(t *testing.T, dir, branch string) string {
	return gittest.Trimmed(t, dir, "ls-tree", "-r", branch)
}

// A run begun here (Begin) whose machine runs as Temporal workflow code
// (objective.Workflow), every command carried out by a Worker in
// the run's worktree: the full workflow, its plans run as a phase, ends
// complete, delivered into main as a local run is, with the same tree;
// the folder's journal holds the run as a local run's.
func TestWorkerCarriesARunOutForItsWorkflow(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	repo := gittest.Service(t)
	o := options(t, repo, workflows.Full)
	run, spec, err := Begin(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(3 * time.Minute)
	var notes []string
	objective.Register(env, nil, onTemporal{&Worker{Options: o, Notes: func(job, text string) { notes = append(notes, job+": "+text) }}})
	env.ExecuteWorkflow(objective.WorkflowName, objective.Input{Spec: &spec,
		Dispatch: &objective.Dispatch{TaskQueue: "hive-test", Heartbeat: time.Minute, Session: time.Hour, Command: 10 * time.Minute, Run: run.ID}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	var res objective.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if s := res.State; s.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("outcome %s (%s), jobs %s\nnotes:\n%s", s.Outcome, s.Reason, jobs(s), strings.Join(notes, "\n"))
	}
	local := gittest.Service(t)
	lo := options(t, local, workflows.Full)
	if _, err := Run(ctx, lo); err != nil {
		t.Fatal(err)
	}
	var delivered Result
	if err := json.Unmarshal(res.Delivery, &delivered); err != nil || !delivered.Merged {
		t.Fatalf("delivery %s (%s): %v", res.Delivery, res.DeliveryError, err)
	}
	if got, want := tree(t, repo.Root, "main"), tree(t, local.Root, "main"); got != want {
		t.Errorf("main holds:\n%s\nthe local run's main:\n%s", got, want)
	}
	if b := gittest.Trimmed(t, repo.Root, "branch", "--list", "hive/*"); b != "" {
		t.Errorf("branches left: %s", b)
	}
	// The journal: the run finished complete, its report built from it.
	last, ok, err := runjournal.Latest(o.Journal)
	if err != nil || !ok || last.ID != run.ID || last.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("the journal's latest run: %+v %v %v", last, ok, err)
	}
	m, err := runjournal.Replay(o.Journal, last)
	if err != nil || jobs(m.Snapshot()) != jobs(res.State) {
		t.Errorf("the journal replays to %s (%v), the workflow ended at %s", jobs(m.Snapshot()), err, jobs(res.State))
	}
	if rep, err := runreport.Build(ctx, o.Journal, repo, last); err != nil || len(rep.Roles) == 0 {
		t.Errorf("the run's report: %+v %v", rep, err)
	}
}
