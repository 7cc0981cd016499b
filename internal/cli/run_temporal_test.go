package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/runworker"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// TestTemporalPipelineSurvivesKilledWorkers runs `hive run --backend
// temporal` (architect, the implementers' phase, tester) on a real
// Temporal dev server with three `hive worker --backend temporal`
// processes and no worker in the process that started it: the run's
// machine is the workflow's code, each role's session an activity. The
// worker that runs the architect's session is killed with SIGKILL, its
// agent with it: the session's lost heartbeat counts as a crash, and the
// architect starts again on a live worker, told it was cut off. The worker
// that readied the phase is killed in turn while the plans run on the
// workers: the phase's workflow, a child of the run's, goes on (it is
// workflow code, held by no worker), its lost sessions start again on a
// live worker, and the phase runs once. The tester's
// question is answered with `hive answer tester`, and the run ends
// complete, merged into main, one commit per task, with the tree a local
// run leaves; the folder's journal holds the run as a local run's.
func TestTemporalPipelineSurvivesKilledWorkers(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// A secret (secrets.env) in a context file, and in what the tests
	// print, stays out of the history.
	const secret = "hunter2-e2e-0123456789"
	hive, dir, addr, tc := temporalPipelineFixture(t, `"secrets": {"env": ["HIVE_E2E_TOKEN"]}, "commands": {"test": "echo the token is $HIVE_E2E_TOKEN; go test -v ./..."}`)
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("the staging token is "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "e2e", "--repo", dir}
	// The architect's first session works until it is stopped; plan
	// 01-01's first task is slow (10× the delay): the phase's workflow
	// still runs when its worker dies.
	env := append(os.Environ(), "HIVE_SIM_DELAY=2s", "HIVE_SIM_FAULTS=architect=hang#1,tester=needs-input#1,01-01=slow@1", "HIVE_E2E_TOKEN="+secret)
	workers := map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	for _, name := range []string{"a", "b", "c"} {
		// No --agent: the run's own (sim) plays every role and plan.
		workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker"}, flags...))
	}
	workerLogs := func() string { return logsOf(logs, "a", "b", "c") }
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--checkpoint-wait=10m", "-c", notes), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	var transcript strings.Builder
	var killed []string
	answered := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		switch {
		case len(killed) == 0 && strings.Contains(line, "architect") && strings.Contains(line, "started (attempt 1)"):
			killed = append(killed, killWorkerOf(t, "architect", workers, logs))
		case len(killed) == 1 && strings.Contains(line, "implementers") && strings.Contains(line, "running the architect's plans"):
			// The plans' sessions have started on the workers when the
			// phase's worker dies.
			time.Sleep(time.Second)
			killed = append(killed, killWorkerOf(t, "implementers", workers, logs))
		case !answered && strings.Contains(line, "tester") && strings.Contains(line, "asks: "):
			answered = true
			// hive status shows the question, and the run's workflow.
			status, err := exec.Command(hive, append([]string{"status"}, flags...)...).CombinedOutput()
			if err != nil || !strings.Contains(string(status), "Temporal workflow hive-run-") || !strings.Contains(string(status), "tester asks: ") {
				t.Fatalf("hive status --backend temporal at the tester's question: %v\n%s", err, status)
			}
			// The answer goes to the workflow, where hive run said the run
			// is (no --backend needed).
			out, err := exec.Command(hive, "answer", "tester", "the simple way", "--repo", dir).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "sent to the run's workflow hive-run-") {
				t.Fatalf("hive answer tester: %v\n%s", err, out)
			}
		}
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("hive run --backend temporal: %v\n%s\n%s\n%s", err, transcript.String(), workerLogs(), openWorkflows(tc))
	}
	got := transcript.String()
	if len(killed) != 2 || killed[0] == killed[1] || !answered {
		t.Fatalf("killed workers: %v; answered: %v\n%s\n%s", killed, answered, got, workerLogs())
	}
	for _, want := range []string{"its worker was lost (", "architect         started (attempt 2)", "run 1 complete", "the run's work is merged into main"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the run's output lacks %q:\n%s\n%s", want, got, workerLogs())
		}
	}
	if n := strings.Count(got, "architect         reported complete"); n != 1 {
		t.Errorf("the architect reported its work %d times, want once:\n%s", n, got)
	}
	// One phase run, in a child workflow of the run's.
	phases := regexp.MustCompile(`the phase's plans run on the workers of task queue e2e-plans \(Temporal workflow (\S+)\)`).FindAllStringSubmatch(got, -1)
	if len(phases) != 1 {
		t.Fatalf("the run started %d phase workflows, want 1:\n%s", len(phases), got)
	}
	desc, err := tc.DescribeWorkflowExecution(ctx, phases[0][1], "")
	if parent := desc.GetWorkflowExecutionInfo().GetParentExecution().GetWorkflowId(); err != nil || parent != runworker.WorkflowID(dir) {
		t.Errorf("the phase's workflow %s has parent %q (%v), want the run's %s", phases[0][1], parent, err, runworker.WorkflowID(dir))
	}
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
		if !regexp.MustCompile(`hive worker: ` + plan + ` attempt [0-9]+ runs here`).MatchString(workerLogs()) {
			t.Errorf("no worker says it ran %s:\n%s", plan, workerLogs())
		}
	}
	history := workflowHistory(t, tc, got)
	if strings.Contains(history, secret) || !strings.Contains(history, "the staging token is") || !strings.Contains(history, "the token is [REDACTED") {
		t.Fatalf("a secret (of the context file, of the tests' output) reached the workflow's history, or they did not:\n%s", history)
	}
	// The folder's journal is the run as the workflow stepped it.
	db, err := journal.Open(filepath.Join(dir, ".hive", "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	last, ok, err := db.LatestRun(runjournal.Key)
	if err != nil || !ok || last.Outcome != "complete" {
		t.Errorf("the folder's journal has run %+v (%v)", last, err)
	}
	evs, err := runjournal.Events(db, last)
	db.Close()
	if err != nil || !strings.Contains(history, `"type":"answer"`) || !hasAnswer(evs) {
		t.Errorf("the journal's events (%v) lack the answer the history holds:\n%s", err, history)
	}
	sameTreeAsLocalRun(t, ctx, hive, dir, roles, "HIVE_SIM_FAULTS=tester=needs-input#1")
}

// hasAnswer says whether evs hold an answer.
func hasAnswer(evs []roleplan.Event) bool {
	for _, ev := range evs {
		if ev.Type == roleplan.EvAnswer {
			return true
		}
	}
	return false
}

// sameTreeAsLocalRun runs `hive ROLES` (a hive run) locally in a new
// project, its questions' defaults taken with --yes, with the sim's
// environment env, and fails unless dir's main holds the same tree.
func sameTreeAsLocalRun(t *testing.T, ctx context.Context, hive, dir string, roles []string, env ...string) {
	t.Helper()
	local := pipelineFixture(t)
	cmd := exec.CommandContext(ctx, hive, append(roles, "--yes", "--repo", local)...)
	cmd.Env = append(append(os.Environ(), "HIVE_SIM_DELAY=1ms"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	if got, want := pipelineTree(t, dir), pipelineTree(t, local); got != want {
		t.Fatalf("the tree the Temporal run left:\n%s\nthe local run's:\n%s", got, want)
	}
}

// startPiped starts cmd, its output (stdout and stderr) to be read from
// the reader returned.
func startPiped(t *testing.T, cmd *exec.Cmd) io.Reader {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout
}

// workflowHistory is what the workflow the run's output names holds in
// its history: the payloads of its input, of its activities' inputs and
// results and of its signals, with the events they carry gzipped
// (a record batch's, the delivery's) unpacked.
func workflowHistory(t *testing.T, c client.Client, output string) string {
	t.Helper()
	m := regexp.MustCompile(`Temporal workflow (hive-run-[0-9a-f]+)`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("the output names no workflow:\n%s", output)
	}
	var b strings.Builder
	it := c.GetWorkflowHistory(context.Background(), m[1], "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		payloads := ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
		payloads = append(payloads, ev.GetActivityTaskScheduledEventAttributes().GetInput().GetPayloads()...)
		payloads = append(payloads, ev.GetWorkflowExecutionSignaledEventAttributes().GetInput().GetPayloads()...)
		payloads = append(payloads, ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads()...)
		for _, p := range payloads {
			b.Write(p.GetData())
			b.WriteByte('\n')
			var zipped struct {
				Stepped []byte `json:"stepped"`
			}
			if json.Unmarshal(p.GetData(), &zipped) == nil && zipped.Stepped != nil {
				z, err := gzip.NewReader(bytes.NewReader(zipped.Stepped))
				if err != nil {
					t.Fatalf("a payload's events are not gzipped: %v", err)
				}
				io.Copy(&b, z)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// TestTemporalPipelinePhaseStopsAtItsBudget: the implementers' phase of
// a `hive run --backend temporal` reaches its share of a token budget and
// stops for a human. Without a terminal the command ends with exit 5 and
// says how to answer, the run waiting on the server; `hive answer
// implementers "raise …"` (no worker is up: the answer is checked against
// the folder's journal and waits in the workflow's history), then `hive
// run --resume --backend temporal`, whose worker steps it, lets the same
// phase workflow go on (not a new one), and the run completes with one
// commit per task.
func TestTemporalPipelinePhaseStopsAtItsBudget(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	// Each subtest has its own Temporal server, repository and queue.
	t.Run("shared folder", func(t *testing.T) { t.Parallel(); testPhaseStopsAtItsBudget(t, false) })
	// Over a git remote, the plans merged before the stop come to the
	// run's worktree, and the rest when the raised phase ends.
	t.Run("git remote", func(t *testing.T) { t.Parallel(); testPhaseStopsAtItsBudget(t, true) })
}

func testPhaseStopsAtItsBudget(t *testing.T, remote bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The sim's three plans spend about 11,500 tokens: more than the
	// phase's share of 12,000.
	hive, dir, addr, _ := temporalPipelineFixture(t, `"budget": {"tokens": 12000}`)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "budget", "--repo", dir}
	var bare string
	var runFlags []string
	if remote {
		bare = bareOrigin(t, dir)
		runFlags = []string{"--git-remote", "origin"}
	}
	hiveRun := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, hive, append(args, flags...)...)
		cmd.Env = append(os.Environ(), "HIVE_SIM_DELAY=100ms")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	first, err := hiveRun(append([]string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim", "--checkpoint-wait=0"}, runFlags...)...)
	var exited *exec.ExitError
	if !errors.As(err, &exited) || exited.ExitCode() != exit.NeedsHuman || !strings.Contains(first, "hive answer implementers raise --repo "+dir) {
		t.Fatalf("hive run at the phase's budget without a terminal: %v, want exit %d saying how to answer\n%s", err, exit.NeedsHuman, first)
	}
	if out, err := hiveRun("answer", "implementers", "raise 60000"); err != nil || !strings.Contains(out, "sent to the run's workflow") {
		t.Fatalf("hive answer implementers: %v\n%s", err, out)
	}
	second, err := hiveRun(append([]string{"run", "--resume", "--agent", "sim"}, runFlags...)...)
	if err != nil || !strings.Contains(second, "run 1 complete") {
		t.Fatalf("hive run --resume --backend temporal after the raise: %v\n%s\nbefore:\n%s", err, second, first)
	}
	got := first + second
	started := regexp.MustCompile(`the phase's plans run on the workers of task queue budget-plans \(Temporal workflow (\S+)\)`).FindAllStringSubmatch(got, -1)
	goesOn := regexp.MustCompile(`the phase's plans go on in Temporal workflow (\S+)`).FindAllStringSubmatch(got, -1)
	if len(started) != 1 || len(goesOn) != 1 || goesOn[0][1] != started[0][1] {
		t.Fatalf("the raised phase did not go on in the workflow that stopped: started %v, went on in %v\n%s", started, goesOn, got)
	}
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
	}
	if remote {
		if left := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/"); left != "" {
			t.Errorf("the run's branches are left on the remote:\n%s", left)
		}
		if !strings.Contains(got, "their work shared through the git remote origin on branches hive/run-1-") {
			t.Errorf("the run does not say where its plans' work goes:\n%s", got)
		}
	}
	t.Logf("the run:\n%s\nresumed:\n%s", first, second)
}

// TestTemporalPipelinePlansOverAGitRemote runs `hive run --backend
// temporal --git-remote origin` with one worker in the project's folder
// that keeps only its journal and takes its delivery (--only folder), and
// three workers in clones of their own, which share nothing with the
// project but the remote (a bare repository) and the Temporal server: the
// roles' sessions, the checks and the implementers' plans all run there,
// the run's worktree going from one to the next on its branch of the
// remote. The clone's worker that runs the architect's session is killed
// with SIGKILL (the architect starts again on another), and, while the
// plans run, so is a clone's worker with an agent at work (its plan
// starts again in another clone). The run ends complete, merged into main,
// one commit per task, with the tree a local run leaves, and no branch of
// the run left on the remote.
func TestTemporalPipelinePlansOverAGitRemote(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	hive, dir, addr, tc := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	bare := bareOrigin(t, dir)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "remote"}
	// The architect's first session hangs, on a worker that dies; plan
	// 01-01's first task is slow (3 s): its session is at work when its
	// worker dies.
	env := append(os.Environ(), "HIVE_SIM_DELAY=300ms", "HIVE_SIM_FAULTS=01-01=slow@1,architect=hang#1")
	clones := map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	_, logs["here"] = startWorker(t, hive, env, append([]string{"worker", "--only", "folder", "--repo", dir}, flags...))
	for _, name := range []string{"there-1", "there-2", "there-3"} {
		clones[name], logs[name] = cloneWorker(t, hive, bare, name, env, flags)
	}
	workerLogs := func() string { return logsOf(logs, "here", "there-1", "there-2", "there-3") }
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--git-remote", "origin", "--repo", dir), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	var transcript strings.Builder
	killedRole, killedClone := "", ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		switch {
		case killedRole == "" && strings.Contains(line, "architect") && strings.Contains(line, "started (attempt 1)"):
			killedRole = killWorkerOf(t, "architect", clones, logs)
		case killedClone == "" && strings.Contains(line, "running the architect's plans"):
			killedClone = killWorkerOf(t, "01-01", clones, logs)
		}
	}
	err := run.Wait()
	got := transcript.String()
	if err != nil || !strings.Contains(got, "run 1 complete") || !strings.Contains(got, "the run's work is merged into main") {
		t.Fatalf("hive run --backend temporal --git-remote origin: %v\n%s\n%s\n%s", err, got, workerLogs(), openWorkflows(tc))
	}
	if killedRole == "" || killedClone == "" || !strings.Contains(got, "architect         started (attempt 2)") {
		t.Fatalf("killed the clones' workers %q and %q; the architect did not start again:\n%s\n%s", killedRole, killedClone, got, workerLogs())
	}
	ran := logs["there-1"].String() + logs["there-2"].String() + logs["there-3"].String()
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
		if !regexp.MustCompile(`hive worker: ` + plan + ` attempt [0-9]+ runs here`).MatchString(ran) {
			t.Errorf("no worker in a clone ran %s:\n%s", plan, workerLogs())
		}
	}
	// The roles' sessions ran in the clones, none in the folder, which
	// delivered the run.
	for _, session := range []string{"architect attempt 2", "tester attempt 1"} {
		if !strings.Contains(ran, session+" runs here") || strings.Contains(logs["here"].String(), "runs here") {
			t.Errorf("the %s did not run in a clone:\n%s", session, workerLogs())
		}
	}
	if !strings.Contains(logs["here"].String(), "hive worker: run 1 complete") {
		t.Errorf("the folder's worker did not deliver the run:\n%s", workerLogs())
	}
	if left := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/"); left != "" {
		t.Errorf("the run's branches are left on the remote:\n%s", left)
	}
	sameTreeAsLocalRun(t, ctx, hive, dir, roles)
	t.Logf("killed %s and %s; the run:\n%s\n%s", killedRole, killedClone, got, workerLogs())
}

// TestTemporalRunSurvivesAKilledImplementer is issue 49's acceptance: `hive
// run "add a health check endpoint"` (the quick workflow: the implementer,
// hive's build, the tester) on a real Temporal dev server, its machine the
// workflow's code, with two `hive worker` processes and sim agents. The
// worker that runs the implementer is killed with SIGKILL in the middle
// of the role: after the heartbeat timeout the implementer runs again on
// the other worker, told it was cut off, and finishes there. The tester's
// question is answered with `hive answer`. The run ends complete, with the
// commits and the tree a local run leaves. The same with --git-remote and
// the two workers in clones of their own (the folder keeping only the
// journal and the delivery).
func TestTemporalRunSurvivesAKilledImplementer(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	t.Run("shared folder", func(t *testing.T) { t.Parallel(); testKilledImplementer(t, false) })
	t.Run("git remote", func(t *testing.T) { t.Parallel(); testKilledImplementer(t, true) })
}

func testKilledImplementer(t *testing.T, remote bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hive, dir, addr, tc := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "acceptance"}
	env := append(os.Environ(), "HIVE_SIM_DELAY=200ms", "HIVE_SIM_FAULTS=implementer=hang#1,tester=needs-input#1")
	workers, logs := map[string]*exec.Cmd{}, map[string]*lockedBuffer{}
	runFlags := []string{"--local-worker=false", "--checkpoint-wait=10m", "--repo", dir}
	if remote {
		bare := bareOrigin(t, dir)
		_, logs["folder"] = startWorker(t, hive, env, append([]string{"worker", "--only", "folder", "--repo", dir}, flags...))
		for _, name := range []string{"one", "two"} {
			workers[name], logs[name] = cloneWorker(t, hive, bare, name, env, flags)
		}
		runFlags = append(runFlags, "--git-remote", "origin")
	} else {
		for _, name := range []string{"one", "two"} {
			workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker", "--repo", dir}, flags...))
		}
	}
	workerLogs := func() string { return logsOf(logs, "folder", "one", "two") }
	objective := []string{"run", "add a health check endpoint", "-w", "quick", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(objective, runFlags...), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	var transcript strings.Builder
	killed, answered := "", false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		switch {
		case killed == "" && strings.Contains(line, "implementer") && strings.Contains(line, "started (attempt 1)"):
			killed = killWorkerOf(t, "implementer", workers, logs)
		case !answered && strings.Contains(line, "tester") && strings.Contains(line, "asks: "):
			answered = true
			out, err := exec.Command(hive, "answer", "tester", "the simple way", "--repo", dir).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "sent to the run's workflow hive-run-") {
				t.Fatalf("hive answer tester: %v\n%s", err, out)
			}
		}
	}
	err := run.Wait()
	got := transcript.String()
	if err != nil || killed == "" || !answered || !strings.Contains(got, "run 1 complete") || !strings.Contains(got, "the run's work is merged into main") {
		t.Fatalf("hive run with the implementer's worker killed (%q; answered %v): %v\n%s\n%s\n%s", killed, answered, err, got, workerLogs(), openWorkflows(tc))
	}
	other := "one"
	if killed == "one" {
		other = "two"
	}
	if !strings.Contains(got, "its worker was lost (") || !strings.Contains(logs[other].String(), "implementer attempt 2 runs here") {
		t.Fatalf("the implementer did not run again on the other worker (%s) after its worker was lost:\n%s\n%s", other, got, workerLogs())
	}
	// The commits and the tree of a local run whose implementer's first
	// attempt crashed (the sim's change names the attempt that made it),
	// its question's default taken with --yes.
	local := pipelineFixture(t)
	cmd := exec.CommandContext(ctx, hive, append(objective, "--yes", "--repo", local)...)
	cmd.Env = append(os.Environ(), "HIVE_SIM_DELAY=1ms", "HIVE_SIM_FAULTS=implementer=crash#1,tester=needs-input#1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	if got, want := git(t, dir, "log", "--format=%s", "main"), git(t, local, "log", "--format=%s", "main"); got != want {
		t.Errorf("main's commits:\n%s\na local run's:\n%s", got, want)
	}
	if got, want := pipelineTree(t, dir), pipelineTree(t, local); got != want {
		t.Errorf("the tree the Temporal run left:\n%s\nthe local run's:\n%s", got, want)
	}
	t.Logf("killed %s; the run:\n%s\n%s", killed, got, workerLogs())
}

// TestTemporalPipelineRefusesAnEarlierHivesRun: a run an earlier hive
// started (a hive-pipeline workflow, driven by its workers from the
// journal) is not followed by this one, which says how to go on.
func TestTemporalPipelineRefusesAnEarlierHivesRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hive, dir, addr, c := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: runworker.WorkflowID(dir), TaskQueue: "old-run"}, "hive-pipeline", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, hive, "run", "--resume", "--backend", "temporal", "--temporal-address", addr, "--repo", dir).CombinedOutput()
	var exited *exec.ExitError
	if !errors.As(err, &exited) || exited.ExitCode() != exit.Busy || !strings.Contains(string(out), "was started by an earlier hive") ||
		!strings.Contains(string(out), "temporal workflow terminate --workflow-id "+runworker.WorkflowID(dir)) {
		t.Fatalf("hive run --resume beside an earlier hive's run: %v, want exit %d saying how to go on\n%s", err, exit.Busy, out)
	}
}

// openWorkflows says what the server's open workflows wait for: their
// pending activities, where they run and how often they were tried (for
// a test's failure).
func openWorkflows(c client.Client) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := c.ListOpenWorkflow(ctx, &workflowservice.ListOpenWorkflowExecutionsRequest{MaximumPageSize: 50})
	if err != nil {
		return "open workflows: " + err.Error()
	}
	var b strings.Builder
	for _, wf := range list.GetExecutions() {
		id := wf.GetExecution().GetWorkflowId()
		fmt.Fprintf(&b, "open workflow %s (%s)\n", id, wf.GetType().GetName())
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			fmt.Fprintf(&b, "  %v\n", err)
			continue
		}
		for _, a := range d.GetPendingActivities() {
			fmt.Fprintf(&b, "  activity %s %s on %q, attempt %d, last failure %q\n", a.GetActivityType().GetName(), a.GetState(),
				a.GetLastWorkerIdentity(), a.GetAttempt(), a.GetLastFailure().GetMessage())
		}
		if wt := d.GetPendingWorkflowTask(); wt != nil {
			fmt.Fprintf(&b, "  workflow task %s, attempt %d\n", wt.GetState(), wt.GetAttempt())
		}
	}
	return b.String()
}

// bareOrigin makes a bare repository the project in dir pushes its main
// to, as its remote origin.
func bareOrigin(t *testing.T, dir string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	git(t, "", "init", "-q", "--bare", "-b", "main", bare)
	git(t, dir, "remote", "add", "origin", bare)
	git(t, dir, "push", "-q", "origin", "main")
	return bare
}

// cloneWorker starts `hive worker` (flags) in a new clone of bare, the
// commits there by name.
func cloneWorker(t *testing.T, hive, bare, name string, env, flags []string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	clone := filepath.Join(t.TempDir(), name)
	git(t, "", "clone", "-q", bare, clone)
	git(t, clone, "config", "user.name", "Hive "+name)
	git(t, clone, "config", "user.email", name+"@example.invalid")
	return startWorker(t, hive, env, append([]string{"worker", "--repo", clone}, flags...))
}

// logsOf is the output of the named workers that started, one after
// another.
func logsOf(logs map[string]*lockedBuffer, names ...string) string {
	var b strings.Builder
	for _, name := range names {
		if logs[name] != nil {
			b.WriteString("worker " + name + ":\n" + logs[name].String())
		}
	}
	return b.String()
}

// killWorkerOf SIGKILLs, with its agents, the worker that says it runs
// job's first attempt, half a second after it says so, and returns its
// name; it waits 30 s at most for one to say it.
func killWorkerOf(t *testing.T, job string, workers map[string]*exec.Cmd, logs map[string]*lockedBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for name, w := range workers {
			if strings.Contains(logs[name].String(), "hive worker: "+job+" attempt 1 runs here") {
				time.Sleep(500 * time.Millisecond)
				killTree(w.Process.Pid)
				return name
			}
		}
	}
	t.Fatalf("no worker ran %s in 30 s", job)
	return ""
}

// temporalPipelineFixture is the hive binary, a project for hive run with
// the configuration cfg (JSON members) and a stall timeout of 100 s, whose
// heartbeat timeout is then the least, 10 s (the time a killed worker's
// work waits for the next), and a Temporal dev server for it.
func temporalPipelineFixture(t *testing.T, cfg string) (hive, dir, addr string, c client.Client) {
	t.Helper()
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	addr, c = temporaltest.Start(t)
	dir = pipelineFixture(t)
	if err := os.MkdirAll(filepath.Join(dir, ".hive"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := `{"timeouts": {"stall": "100s"}, ` + cfg + `}`
	if err := os.WriteFile(filepath.Join(dir, ".hive", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return hive, dir, addr, c
}
