package piperun

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// With evaluation on, every role's work is judged before the next role
// starts: hive's checks in the run's worktree (a real go build and go
// test) and three sim evaluators side by side. A warning reaches the next
// role's prompt; the risk evaluator blocks the tester every time, so the
// tester works again with the verdict, then the run stops for a human
// with the three verdicts and the computed confidence (seed 003 success
// criterion 7).
func TestEvaluationRoutes(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, faults.EnvFaults+"=evaluate-implementer-coherence=warn,evaluate-tester-risk=block")
	rec := &prompts{Launcher: o.Launcher}
	o.Launcher, o.Wait = rec, 0
	o.Routing = roleplan.Routing{Evaluate: true}
	_, err := Run(ctx, o)
	var nh *NeedsHumanError
	if !errors.As(err, &nh) {
		t.Fatalf("the run did not stop for a human: %v", err)
	}
	cp := nh.Checkpoint
	if cp.Kind != roleplan.KindEvaluation || cp.Job != workflows.RoleTester || cp.Evaluation == nil {
		t.Fatalf("stopped at %s's %s checkpoint (%q), want the tester's evaluation", cp.Job, cp.Kind, cp.Question)
	}
	for _, want := range []string{"Completeness: ✓", "Coherence:    ✓", "Risk:         ✗ simulated: a blocking gap found by evaluate-tester-risk",
		"Tester produced a test run of", "Computed confidence"} {
		if !strings.Contains(cp.Details, want) {
			t.Errorf("the checkpoint's details lack %q:\n%s", want, cp.Details)
		}
	}
	if !strings.Contains(strings.Join(cp.Options, ","), "details") || !strings.Contains(strings.Join(cp.Options, ","), "reject") {
		t.Errorf("options %v", cp.Options)
	}
	// hive's own checks ran: the tests passed and were read.
	if c := cp.Evaluation.Checks; c == nil || c.Points < 50 {
		t.Errorf("the tester's checks: %+v", c)
	}
	tester, _ := rec.get("tester/1")
	if !strings.Contains(tester, "implementer (coherence evaluator): simulated: a concern found by evaluate-implementer-coherence") {
		t.Errorf("the implementer's warning is not in the tester's prompt:\n%s", tester)
	}
	again, ok := rec.get("tester/2")
	if !ok || !strings.Contains(again, "## The evaluators found blocking gaps") || !strings.Contains(again, "risk: simulated: a blocking gap") {
		t.Errorf("the tester's second attempt was not told the blocking verdict (ran: %v):\n%s", ok, again)
	}
	if _, ok := rec.get("evaluate-tester-completeness/2"); !ok {
		t.Error("the second attempt was not evaluated")
	}
	// Every evaluation is journaled; the implementer's computed
	// confidence counts a real build and test run.
	run, _, _ := runjournal.Latest(o.Journal)
	var evals []roleplan.Event
	for _, p := range journaled(o.Journal, run.ID, string(roleplan.EvEvaluated)) {
		var ev roleplan.Event
		if err := json.Unmarshal(p, &ev); err != nil {
			t.Fatal(err)
		}
		evals = append(evals, ev)
	}
	if len(evals) != 3 || evals[0].Job != workflows.RoleImplementer {
		t.Fatalf("%d evaluations journaled: %+v", len(evals), evals)
	}
	impl := evals[0].Evaluation
	if impl.Checks == nil || !strings.Contains(impl.Checks.String(), "build passes ✓") || !strings.Contains(impl.Checks.String(), "tests pass ✓") {
		t.Errorf("the implementer's checks: %v", impl.Checks)
	}
	if impl.Spend.Tokens() == 0 || impl.Verdicts[0].Spend.Tokens() == 0 {
		t.Errorf("the evaluators' calls cost nothing: %+v", impl.Spend)
	}
	// The human rejects the tester's work with feedback: it works again
	// with it; the risk evaluator still blocks, so after one more attempt
	// the human is asked again, and continue goes on.
	o.Resume, o.Answer = true, "reject cover the error path"
	o.Wait = 0
	_, err = Run(ctx, o)
	if !errors.As(err, &nh) || nh.Checkpoint.Kind != roleplan.KindEvaluation {
		t.Fatalf("after the reject: %v", err)
	}
	third, _ := rec.get("tester/3")
	if !strings.Contains(third, "## The human rejected your last attempt") || !strings.Contains(third, "cover the error path") {
		t.Errorf("the third attempt lacks the human's feedback:\n%s", third)
	}
	o.Answer = "continue"
	res, err := Run(ctx, o)
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete {
		t.Fatalf("after continue: %v %s", err, res.Snapshot.Outcome)
	}
	// What the evaluators cost is the job's spend, which the budget counts.
	for _, j := range res.Snapshot.Jobs {
		if j.ID == workflows.RoleImplementer && j.Spend.Tokens() <= impl.Spend.Tokens() {
			t.Errorf("the implementer's spend %+v leaves out its evaluation's %+v", j.Spend, impl.Spend)
		}
	}
}
