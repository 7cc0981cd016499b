package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/parse"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/runner/prompt"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

// shellAgent is a test Launcher: each agent is `sh -c script`, with the
// plan id in $PLAN. Scripts print stream-json lines like a real agent.
type shellAgent struct{ script string }

func (shellAgent) Name() string { return "sh" }

func (shellAgent) LiveSessions() bool { return false }

func (a shellAgent) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	spec.Env = append(spec.Env, "PLAN="+spec.Plan)
	return adapter.StartStreamJSON(ctx, []string{"sh", "-c", a.script}, spec, sink)
}

// completeScript makes the plan's SUMMARY and a commit, then reports PLAN COMPLETE.
const completeScript = `
d=$(dirname "$(ls .planning/phases/*/$PLAN-PLAN.md)")
printf -- '---\nphase: x\nplan: y\n---\n# S\n\n## Self-Check: PASSED\n' > "$d/$PLAN-SUMMARY.md"
git add "$d/$PLAN-SUMMARY.md" && git commit -q -m "docs($PLAN): complete plan" -- "$d/$PLAN-SUMMARY.md"
printf '{"type":"assistant","message":{"content":[{"type":"text","text":"PLAN COMPLETE\\n\\n**Plan:** %s"}]}}\n' "$PLAN"
printf '{"type":"result","subtype":"success","is_error":false,"result":"done"}\n'
`

type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}
func (r *recorder) Resumed(run journal.Run, s phase.Snapshot) { r.add("resumed %d", run.ID) }
func (r *recorder) Event(ev phase.Event, s phase.Snapshot)    { r.add("event %s %s", ev.Type, ev.Plan) }
func (r *recorder) Command(c phase.Command, s phase.Snapshot) {
	r.add("command %s %s %s %s", c.Type, c.Plan, c.State, c.Reason)
}
func (r *recorder) Note(planID, text string) { r.add("note %s %s", planID, text) }
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

func options(t *testing.T, root string, ph *plan.Phase, j journal.Journal, l agent.Launcher, obs Observer) Options {
	repo, err := gitx.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Repo: repo, Phase: ph, Journal: j, Observer: obs, Schedule: Schedule{MaxConcurrent: 2}, Agents: Agents{Launcher: l, StopGrace: time.Second}}
}

// A plan may depend on a plan of an earlier phase: the run goes ahead when
// that plan is complete on disk and refuses, saying which, when it is not.
func TestForeignDependency(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/02-api/02-01-PLAN.md": runnertest.PlanFile("02-api", "01", "01-01"),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/02-api")
	obs := &recorder{}
	_, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{completeScript}, obs))
	if err == nil || !strings.Contains(err.Error(), "depends on 01-01 of another phase, which is not complete") {
		t.Fatalf("Run = %v, want a refusal naming 01-01", err)
	}

	sum := filepath.Join(root, ".planning/phases/01-core/01-01-SUMMARY.md")
	os.MkdirAll(filepath.Dir(sum), 0o755)
	os.WriteFile(sum, []byte("---\nphase: 01\nplan: 01\n---\n# S\n\n## Self-Check: PASSED\n"), 0o644)
	res, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{completeScript}, obs))
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs)
	}
}

// A run whose last event was journaled but whose end was not (hive died in
// between) is closed on the next start instead of waiting forever.
func TestResumeOfAFinishedRun(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	j := journaltest.NewMemory()
	obs := &recorder{}
	o := options(t, root, ph, j, shellAgent{completeScript}, obs)
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// Forge the crash: a journal holding the same events in a run never marked finished.
	j2 := journaltest.NewMemory()
	run, _ := j2.CreateRun(ph.Dir, time.Now())
	j.Each(1, func(rec journal.Record) error {
		_, err := j2.Append(run.ID, rec.Type, rec.Time, rec.Payload)
		return err
	})
	o.Journal = j2
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, obs)
	}
	// It is taken over only to be closed (and, with worktrees, to have its
	// work merged into the user's branch): no new run, nothing run again.
	if !res.Resumed || res.Run.ID != run.ID || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("the finished run was not closed as it stood: %+v", res)
	}
	if runs, _ := j2.Runs(); len(runs) != 1 {
		t.Fatalf("%d runs, want the one", len(runs))
	}
	runs, _ := j2.Runs()
	if old := runs[0]; old.Finished.IsZero() || old.Outcome != phase.OutcomeComplete {
		t.Fatalf("the old run was not closed as complete: %+v", old)
	}
}

// A plan file deleted while its run was unfinished stops the resume with a
// message that says what to do.
func TestResumeWithAMissingPlan(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
		".planning/phases/01-core/01-02-PLAN.md": runnertest.PlanFile("01-core", "02", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	j := journaltest.NewMemory()
	// An unfinished run that started both plans.
	spec := phase.RunSpec{Phase: "01", MaxConcurrent: 2, Plans: []phase.PlanSpec{{ID: "01-01", Wave: 1, Tasks: 1}, {ID: "01-02", Wave: 1, Tasks: 1}}}
	run, _ := j.CreateRun(ph.Dir, time.Now())
	payload := fmt.Sprintf(`{"type":"run-started","spec":%s}`, mustJSON(t, spec))
	j.Append(run.ID, "run-started", time.Now(), []byte(payload))

	os.Remove(filepath.Join(root, ".planning/phases/01-core/01-02-PLAN.md"))
	ph = runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	_, err := Run(context.Background(), options(t, root, ph, j, shellAgent{completeScript}, &recorder{}))
	if err == nil || !strings.Contains(err.Error(), "01-02") || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("Run = %v, want an error naming 01-02 and --fresh", err)
	}
	o := options(t, root, ph, j, shellAgent{completeScript}, &recorder{})
	o.Schedule.Fresh = true
	if res, err := Run(context.Background(), o); err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run --fresh = %v, %+v", err, res.Snapshot)
	}
}

// Two runs of one phase at once: the second is refused while the first holds the lock.
func TestPhaseLock(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	release, err := lock.Phase(root, ph.Dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{completeScript}, &recorder{}))
	if !errors.Is(err, lock.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("Run = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	release()
	if _, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{completeScript}, &recorder{})); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// An agent that leaves a daemon behind holding its stdout open still ends:
// hive reaps the process itself and stops waiting for the pipe.
func TestAgentLeavingADaemon(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatalf("setsid (util-linux) is needed: %v", err)
	}
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	script := completeScript + "\nsetsid sleep 30 &\n"
	start := time.Now()
	res, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{script}, &recorder{}))
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, %+v", err, res.Snapshot)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("Run took %s: it waited for the daemon's pipe", d)
	}
}

// PLAN COMPLETE is checked only when the turn has ended: a SUMMARY committed
// after the message, in the same turn, still counts.
func TestPlanCompleteBeforeTheSummaryCommit(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	script := `
printf '{"type":"assistant","message":{"content":[{"type":"text","text":"PLAN COMPLETE\\n\\n**Plan:** %s"}]}}\n' "$PLAN"
sleep 0.5
d=$(dirname "$(ls .planning/phases/*/$PLAN-PLAN.md)")
printf -- '---\nphase: x\nplan: y\n---\n# S\n\n## Self-Check: PASSED\n' > "$d/$PLAN-SUMMARY.md"
git add "$d/$PLAN-SUMMARY.md" && git commit -q -m "docs($PLAN): complete plan" -- "$d/$PLAN-SUMMARY.md"
printf '{"type":"result","subtype":"success","is_error":false,"result":"done"}\n'
`
	obs := &recorder{}
	res, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), shellAgent{script}, obs))
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs)
	}
}
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A project can replace the executor prompt in .hive/agents/executor.md; a
// broken template is a clear error before anything runs.
func TestPromptOverride(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
		prompt.OverridePath:                      "CUSTOM PROMPT for {{.ID}} at {{.Path}}\n",
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	script := completeScript
	var said string
	launcher := recordingAgent{shellAgent{script}, &said}
	if _, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), launcher, &recorder{})); err != nil {
		t.Fatal(err)
	}
	if said != "CUSTOM PROMPT for 01-01 at .planning/phases/01-core/01-01-PLAN.md\n" {
		t.Fatalf("prompt = %q", said)
	}
	os.WriteFile(filepath.Join(root, prompt.OverridePath), []byte("{{.Broken"), 0o644)
	_, err := Run(context.Background(), options(t, root, ph, journaltest.NewMemory(), launcher, &recorder{}))
	if err == nil || !strings.Contains(err.Error(), prompt.OverridePath) {
		t.Fatalf("Run = %v, want an error naming %s", err, prompt.OverridePath)
	}
}

type recordingAgent struct {
	shellAgent
	prompt *string
}

func (a recordingAgent) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	*a.prompt = spec.Prompt
	return a.shellAgent.Start(ctx, spec, sink)
}

// A turn that ends in an error (is_error, e.g. the API refused) fails the
// plan with the CLI's own text; unattended, it is retried once, then skipped.
func TestTurnErrorFailsThePlan(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-core/01-01-PLAN.md": runnertest.PlanFile("01-core", "01", ""),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-core")
	script := `printf '{"type":"result","subtype":"error_during_execution","is_error":true,"result":"API Error: 529 overloaded_error"}\n'`
	obs := &recorder{}
	o := options(t, root, ph, journaltest.NewMemory(), shellAgent{script}, obs)
	o.Human.AutoAnswer = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Snapshot.Plans[0]
	if p.State != phase.Failed || !strings.Contains(p.Reason, "API Error: 529 overloaded_error") || p.Attempt != 2 {
		t.Fatalf("plan %s attempt %d: %s\n%s", p.State, p.Attempt, p.Reason, obs)
	}
}

func TestEstimateOf(t *testing.T) {
	for v, want := range map[any]time.Duration{"45m": 45 * time.Minute, "1h30m": 90 * time.Minute, 20: 20 * time.Minute, 1.5: 90 * time.Second, "soon": 0, -3: 0} {
		if got := estimateOf(&plan.Plan{Extra: map[string]any{"estimate": v}}); got != want {
			t.Errorf("estimate %v = %v, want %v", v, got, want)
		}
	}
	if estimateOf(&plan.Plan{}) != 0 {
		t.Error("no estimate, yet one")
	}
}

func TestEstimateFromFrontmatter(t *testing.T) {
	for text, want := range map[string]time.Duration{"estimate: 20": 20 * time.Minute, "estimate: 45m": 45 * time.Minute, "estimate: 2.5": 150 * time.Second} {
		src := "---\nphase: 01-x\nplan: 01\n" + text + "\n---\n<objective>x</objective>\n<tasks>\n<task type=\"auto\"><name>a</name><action>b</action></task>\n</tasks>\n"
		p, _ := parse.Plan(".planning/phases/01-x/01-01-PLAN.md", []byte(src))
		if got := estimateOf(p); got != want {
			t.Errorf("%q: %v, want %v (extra %#v)", text, got, want, p.Extra)
		}
	}
}
