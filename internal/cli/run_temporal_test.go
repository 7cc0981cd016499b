package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/temporal"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
	"go.temporal.io/api/workflowservice/v1"
)

// TestTemporalPipelineSurvivesKilledWorkers runs `hive run --backend
// temporal` (architect, the implementers' phase, tester) on a real
// Temporal dev server with three `hive worker --backend temporal`
// processes and no driver in the process that started it. The worker
// that drives the run is killed with SIGKILL, its agent with it, while
// the architect works: the next takes the run over from the journal. That
// one is killed in turn while the phase's plans run on the workers: the
// phase's workflow goes on, its lost sessions start again on a live
// worker, and the third driver follows the phase instead of running it
// again. The tester's question is answered with `hive answer tester`,
// and the run ends complete, merged into main, one commit per task, with
// the tree a local run leaves.
func TestTemporalPipelineSurvivesKilledWorkers(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// A secret (secrets.env) in a context file stays out of the history.
	const secret = "hunter2-e2e-0123456789"
	hive, dir, addr, tc := temporalPipelineFixture(t, `"secrets": {"env": ["HIVE_E2E_TOKEN"]}`)
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("the staging token is "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "e2e", "--repo", dir}
	// Plan 01-01's first task is slow (10× the delay): the phase's
	// workflow still runs when the third driver takes the run over, and
	// that driver follows it (its agents, stopped at once now, would
	// otherwise all be done by then).
	env := append(os.Environ(), "HIVE_SIM_DELAY=2s", "HIVE_SIM_FAULTS=tester=needs-input#1,01-01=slow@1", "HIVE_E2E_TOKEN="+secret)
	workers := map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	for _, name := range []string{"a", "b", "c"} {
		// No --agent: the run's own (sim) plays every role and plan.
		workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker"}, flags...))
	}
	workerLogs := func() string {
		var b strings.Builder
		for name, out := range logs {
			b.WriteString("worker " + name + ":\n" + out.String())
		}
		return b.String()
	}
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--checkpoint-wait=10m", "-c", notes), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	// kill SIGKILLs the worker that drives the run now, and its agents.
	driver := regexp.MustCompile(`\(pid ([0-9]+)\)`)
	pid := ""
	var killed []string
	// kill kills the driver now, or, where the run has not yet named the
	// one that took over from the last killed, once it does (its records
	// may show before its name).
	pending := false
	kill := func() {
		for name, w := range workers {
			if strconv.Itoa(w.Process.Pid) != pid {
				continue
			}
			if slices.Contains(killed, name) {
				pending = true
				return
			}
			killTree(w.Process.Pid)
			killed = append(killed, name)
			pending = false
			return
		}
		t.Fatalf("no worker has the driver's pid %s", pid)
	}
	var transcript strings.Builder
	answered := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		if m := driver.FindStringSubmatch(line); m != nil {
			pid = m[1]
			if pending {
				kill()
			}
		}
		switch {
		case len(killed) == 0 && strings.Contains(line, "architect") && strings.Contains(line, "started (attempt 1)"):
			kill()
		case len(killed) == 1 && strings.Contains(line, "implementers") && strings.Contains(line, "running the architect's plans"):
			// The plans' sessions have started on the workers when the
			// driver dies.
			time.Sleep(time.Second)
			kill()
		case !answered && strings.Contains(line, "tester") && strings.Contains(line, "asks: "):
			answered = true
			// hive status shows the question, and the workflow that drives
			// the run.
			status, err := exec.Command(hive, append([]string{"status"}, flags...)...).CombinedOutput()
			if err != nil || !strings.Contains(string(status), "Temporal workflow hive-run-") || !strings.Contains(string(status), "tester asks: ") {
				t.Fatalf("hive status --backend temporal at the tester's question: %v\n%s", err, status)
			}
			// So does status --watch, in a project with no .planning of
			// its own to follow.
			watched, err := exec.Command(hive, append([]string{"status", "--watch"}, flags...)...).CombinedOutput()
			if err != nil || !strings.Contains(string(watched), "Temporal workflow hive-run-") {
				t.Fatalf("hive status --watch --backend temporal at the tester's question: %v\n%s", err, watched)
			}
			// The answer goes to the workflow, where hive run said the run
			// is (no --backend needed), and the driver journals it.
			out, err := exec.Command(hive, "answer", "tester", "the simple way", "--repo", dir).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "sent to the run's workflow hive-run-") {
				t.Fatalf("hive answer tester: %v\n%s", err, out)
			}
			t.Logf("hive answer:\n%s", out)
		}
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("hive run --backend temporal: %v\n%s\n%s", err, transcript.String(), workerLogs())
	}
	got := transcript.String()
	if len(killed) != 2 || !answered {
		t.Fatalf("killed workers: %v; answered: %v\n%s\n%s", killed, answered, got, workerLogs())
	}
	for _, want := range []string{"takes it over from the journal (driver 2)", "takes it over from the journal (driver 3)", "run 1 complete", "the run's work is merged into main"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the run's output lacks %q:\n%s\n%s", want, got, workerLogs())
		}
	}
	// The killed architect's turn is done again by the next driver; the
	// third driver follows the phase's workflow the second started.
	if n := strings.Count(got, "architect         reported complete"); n != 1 {
		t.Errorf("the architect reported its work %d times, want once:\n%s", n, got)
	}
	if !strings.Contains(workerLogs(), "the phase's plans go on in Temporal workflow hive-run-") {
		t.Errorf("the third driver did not follow the phase's workflow:\n%s", workerLogs())
	}
	// One commit per task: the plans that ran on the killed worker were
	// done again, never twice. The workers say where each plan ran.
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
		if !regexp.MustCompile(`hive worker: ` + plan + ` attempt [0-9]+ runs here`).MatchString(workerLogs()) {
			t.Errorf("no worker says it ran %s:\n%s", plan, workerLogs())
		}
	}
	t.Logf("workers %v killed; the run:\n%s", killed, got)
	history := workflowHistory(t, tc, got)
	if strings.Contains(history, secret) || !strings.Contains(history, "the staging token is") {
		t.Fatalf("the secret of the context file reached the workflow's history, or the file did not:\n%s", history)
	}
	// The roles' sessions ran on the workers, as workflows of their own,
	// whose histories hold the context file, masked, too.
	if !strings.Contains(workerLogs(), "runs here (the architect)") || !strings.Contains(workerLogs(), "runs here (the tester)") {
		t.Errorf("no worker says it ran the architect's session:\n%s", workerLogs())
	}
	if roles := roleHistories(t, tc); !strings.Contains(roles, "the staging token is") || strings.Contains(roles, secret) {
		t.Fatalf("the roles' sessions' histories lack the context file, or hold its secret:\n%s", roles)
	}
	// The three drivers handed the workflow the run's every record, the
	// answer hive answer journaled among them.
	sameJournalInWorkflow(t, tc, dir, history)

	// The same run locally, the question's default taken with --yes: the
	// same tree on main.
	sameTreeAsLocalRun(t, ctx, hive, dir, roles, "HIVE_SIM_FAULTS=tester=needs-input#1")
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

// sameJournalInWorkflow fails unless the workflow of the project in dir
// holds the records of run 1 its journal holds (and history, the
// workflow's history, them).
func sameJournalInWorkflow(t *testing.T, c client.Client, dir, history string) {
	t.Helper()
	db, err := journal.Open(filepath.Join(dir, ".hive", "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want, err := db.Events(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := temporal.WorkflowJournal{C: c, ID: pipelineWorkflowID(dir), Ctx: context.Background()}.Events(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("the workflow has %d records of the run, its journal %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || got[i].Type != want[i].Type || string(got[i].Payload) != string(want[i].Payload) {
			t.Fatalf("record %d: the workflow has %s %s, the journal %s %s", i+1, got[i].Type, got[i].Payload, want[i].Type, want[i].Payload)
		}
	}
	if !strings.Contains(history, `"type":"answer"`) {
		t.Errorf("no answer among the records in the workflow's history")
	}
}

// workflowHistory is what the workflow the run's output names holds in
// its history: the payloads of its input, of its activities' inputs and
// of its signals.
func workflowHistory(t *testing.T, c client.Client, output string) string {
	t.Helper()
	m := regexp.MustCompile(`Temporal workflow (hive-run-[0-9a-f]+)`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("the output names no workflow:\n%s", output)
	}
	var b strings.Builder
	historyPayloads(t, c, m[1], "", &b)
	return b.String()
}

// historyPayloads writes what workflow id (its run runID, "" for the
// latest) holds in its history to b: the payloads of its input, of its
// activities' inputs and of its signals, a line each.
func historyPayloads(t *testing.T, c client.Client, id, runID string, b *strings.Builder) {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		payloads := ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
		payloads = append(payloads, ev.GetActivityTaskScheduledEventAttributes().GetInput().GetPayloads()...)
		payloads = append(payloads, ev.GetWorkflowExecutionSignaledEventAttributes().GetInput().GetPayloads()...)
		for _, p := range payloads {
			b.Write(p.GetData())
			b.WriteByte('\n')
		}
	}
}

// roleHistories is what the role sessions' workflows on the server hold
// in their histories: their inputs, their activities' and their signals'.
func roleHistories(t *testing.T, c client.Client) string {
	t.Helper()
	var b strings.Builder
	var next []byte
	for {
		list, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowType = '" + temporal.RoleWorkflowName + "'", NextPageToken: next})
		if err != nil {
			t.Fatal(err)
		}
		for _, wf := range list.GetExecutions() {
			historyPayloads(t, c, wf.GetExecution().GetWorkflowId(), wf.GetExecution().GetRunId(), &b)
		}
		if next = list.GetNextPageToken(); len(next) == 0 {
			return b.String()
		}
	}
}

// TestTemporalPipelinePhaseStopsAtItsBudget: the implementers' phase of
// a `hive run --backend temporal` reaches its share of a token budget and
// stops for a human. Without a terminal the command ends with exit 5 and
// says how to answer, the run waiting on the workers; `hive answer
// implementers "raise …"`, then `hive run --resume --backend temporal`,
// whose driver takes the run over, lets the same phase workflow go on
// (not a new one), and the run completes with one commit per task.
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
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitNeedsHuman || !strings.Contains(first, "hive answer implementers raise --repo "+dir) {
		t.Fatalf("hive run at the phase's budget without a terminal: %v, want exit %d saying how to answer\n%s", err, ExitNeedsHuman, first)
	}
	// No driver drives the run now (the one in hive run's process went
	// with it): the answer, checked against the folder's journal, waits
	// in the workflow for the next.
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
// temporal --git-remote origin` with its roles driven by two workers in the
// project's folder that run no plan (--only drive), and the implementers'
// plans on two workers in clones of their own, which share nothing with
// the project but the remote (a bare repository) and the Temporal server.
// While the plans run, the driver is killed with SIGKILL (the other takes
// the run over and follows the phase), and so is a clone's worker with an
// agent at work (its plan starts again in the other clone). The run ends
// complete, merged into main, one commit per task, with the tree a local
// run leaves, and no branch of the run left on the remote.
func TestTemporalPipelinePlansOverAGitRemote(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hive, dir, addr, _ := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	bare := bareOrigin(t, dir)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "remote"}
	// The architect's first session hangs, on a worker that dies; plan
	// 01-01's first task is slow (3 s): its session is at work when its
	// worker dies.
	env := append(os.Environ(), "HIVE_SIM_DELAY=300ms", "HIVE_SIM_FAULTS=01-01=slow@1,architect=hang#1")
	drivers, clones := map[string]*exec.Cmd{}, map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	for _, name := range []string{"here-1", "here-2"} {
		drivers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker", "--only", "drive", "--repo", dir}, flags...))
	}
	for _, name := range []string{"there-1", "there-2", "there-3"} {
		clones[name], logs[name] = cloneWorker(t, hive, bare, name, env, flags)
	}
	workerLogs := func() string { return logsOf(logs, "here-1", "here-2", "there-1", "there-2", "there-3") }
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--git-remote", "origin", "--repo", dir), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	driverPid := regexp.MustCompile(`\(pid ([0-9]+)\)`)
	var transcript strings.Builder
	driver, killedDriver, killedClone, killedRole := "", "", "", ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		if killedRole == "" && strings.Contains(line, "architect") && strings.Contains(line, "started (attempt 1)") {
			// The architect's session runs on a clone's worker, which
			// dies: its lost heartbeat ends the session as a crash.
			killedRole = killWorkerOf(t, "architect", clones, logs)
		}
		if m := driverPid.FindStringSubmatch(line); m != nil && driver == "" {
			driver = m[1]
		}
		if killedDriver != "" || driver == "" || !strings.Contains(line, "running the architect's plans") {
			continue
		}
		for name, w := range drivers {
			if strconv.Itoa(w.Process.Pid) == driver {
				// It drives the run: kill it, and the clone's worker that
				// runs 01-01, once its session is at work (the run's output
				// waits in its pipe meanwhile).
				killedClone = killWorkerOf(t, "01-01", clones, logs)
				// The architect's plans reached the remote, on the run's
				// branch, before its report was journaled.
				shared := sharedRunOn(t, bare)
				if plans := git(t, bare, "ls-tree", "-r", "--name-only", shared, ".planning"); !strings.Contains(plans, "01-01-PLAN.md") {
					t.Errorf("the run's branch %s on the remote lacks the architect's plans:\n%s", shared, plans)
				}
				killTree(w.Process.Pid)
				killedDriver = name
			}
		}
	}
	err := run.Wait()
	got := transcript.String()
	if err != nil || !strings.Contains(got, "run 1 complete") || !strings.Contains(got, "the run's work is merged into main") {
		t.Fatalf("hive run --backend temporal --git-remote origin: %v\n%s\n%s", err, got, workerLogs())
	}
	if killedRole == "" || killedDriver == "" || killedClone == "" || !strings.Contains(got, "takes it over from the journal (driver 2)") {
		t.Fatalf("killed driver %q and clone worker %q; no takeover seen:\n%s\n%s", killedDriver, killedClone, got, workerLogs())
	}
	for name := range drivers {
		if strings.Contains(logs[name].String(), "runs here") {
			t.Errorf("a driving worker (--only drive) ran a plan:\n%s", workerLogs())
		}
	}
	subjects := git(t, dir, "log", "--format=%s", "main")
	ran := logs["there-1"].String() + logs["there-2"].String() + logs["there-3"].String()
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
		if !regexp.MustCompile(`hive worker: ` + plan + ` attempt [0-9]+ runs here`).MatchString(ran) {
			t.Errorf("no worker in a clone ran %s:\n%s", plan, workerLogs())
		}
	}
	// The roles' sessions too ran on the clones' workers, not where the
	// run was driven: the architect's second, after its first one's
	// worker died.
	for _, session := range []string{"architect attempt 2", "tester attempt 1"} {
		if !strings.Contains(ran, session+" runs here") {
			t.Errorf("no worker in a clone ran the %s:\n%s", session, workerLogs())
		}
	}
	if !strings.Contains(got, "started (attempt 2)") || !strings.Contains(got, "its session on a worker ended: its worker was lost (") {
		t.Errorf("the architect's lost session was not taken for a crash and run again:\n%s", got)
	}
	if left := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/"); left != "" {
		t.Errorf("the run's branches are left on the remote:\n%s", left)
	}
	sameTreeAsLocalRun(t, ctx, hive, dir, roles)
	t.Logf("killed %s and %s; the run:\n%s\n%s", killedDriver, killedClone, got, workerLogs())
}

// TestTemporalPipelineRoleOutlivesItsDriver: the architect's session
// works on a clone's worker when the worker that drives the run is
// killed with SIGKILL. The driver that takes the run over stops that
// session first (its agent would otherwise work on beside the new one),
// then starts the architect again, and the run completes.
func TestTemporalPipelineRoleOutlivesItsDriver(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hive, dir, addr, _ := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	bare := bareOrigin(t, dir)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "orphan"}
	// The architect's first session works until it is stopped.
	env := append(os.Environ(), "HIVE_SIM_DELAY=300ms", "HIVE_SIM_FAULTS=architect=hang#1")
	workers, logs := map[string]*exec.Cmd{}, map[string]*lockedBuffer{}
	for _, name := range []string{"here-1", "here-2"} {
		workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker", "--only", "drive", "--repo", dir}, flags...))
	}
	workers["there"], logs["there"] = cloneWorker(t, hive, bare, "there", env, flags)
	workerLogs := func() string { return logsOf(logs, "here-1", "here-2", "there") }
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--git-remote", "origin", "--repo", dir), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	driverPid := regexp.MustCompile(`run 1 is driven by \S+ \(pid ([0-9]+)\)`)
	var transcript strings.Builder
	driver, killed := "", false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		if m := driverPid.FindStringSubmatch(line); m != nil && driver == "" {
			driver = m[1]
		}
		if killed || driver == "" || !strings.Contains(line, "started (attempt 1)") || !strings.Contains(line, "architect") {
			continue
		}
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs["there"].String(), "architect attempt 1 runs here"); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the architect's session did not start in the clone:\n%s", workerLogs())
			}
		}
		for _, w := range workers {
			if strconv.Itoa(w.Process.Pid) == driver {
				killTree(w.Process.Pid)
				killed = true
			}
		}
	}
	err := run.Wait()
	got := transcript.String()
	if err != nil || !killed || !strings.Contains(got, "run 1 complete") || !strings.Contains(got, "the run's work is merged into main") {
		t.Fatalf("hive run with its driver killed during the architect's session (killed: %v): %v\n%s\n%s", killed, err, got, workerLogs())
	}
	if !strings.Contains(got, "takes it over from the journal (driver 2)") || !strings.Contains(got, "architect         started (attempt 2)") {
		t.Fatalf("no driver took the run over and started the architect again:\n%s", got)
	}
	// The first session ended before the second began.
	there := logs["there"].String()
	ended, second := strings.Index(there, "architect attempt 1 ended"), strings.Index(there, "architect attempt 2 runs here")
	if ended < 0 || second < 0 || ended > second {
		t.Fatalf("the first architect's session was not stopped before the second started:\n%s", workerLogs())
	}
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
	}
	t.Logf("the run:\n%s\n%s", got, workerLogs())
}

// TestTemporalPipelineGoesOnInAClone: the run's folder has one worker,
// which drives the run; the implementers' plans run on two workers in
// clones of their own. While the plans run, the folder's worker is
// killed with SIGKILL, and no other of the folder comes: after the
// handover a worker of a clone takes the run up, from the workflow's copy
// of its journal and the run's worktree on the remote, and follows the
// phase's workflow (under way, or ended meanwhile: its plans are not run
// again). Then either
//   - it drives the run to its end: the work is on the run's branch of
//     the remote, which the result names, and the folder's journal learns
//     how the run ended; or
//   - the folder comes back (a new worker there) and the clone's worker
//     dies once the phase has ended: the folder's worker takes the run
//     back, its worktree brought to the merged work on the remote, and
//     merges the run into main.
//
// Either way main, once it has the work, holds a local run's tree, one
// commit per task.
func TestTemporalPipelineGoesOnInAClone(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	// Each subtest has its own Temporal server, repository and clones.
	t.Run("to its end", func(t *testing.T) { t.Parallel(); testGoesOnInAClone(t, false) })
	t.Run("and back to its folder", func(t *testing.T) { t.Parallel(); testGoesOnInAClone(t, true) })
}

func testGoesOnInAClone(t *testing.T, comeBack bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	hive, dir, addr, _ := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	bare := bareOrigin(t, dir)
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "clone"}
	// The tester is slow (3 s): the clone's driver is killed while it
	// works, which the run's transcript, fetched in batches, may tell too
	// late; the driver's own log tells it at once.
	env := append(os.Environ(), "HIVE_SIM_DELAY=300ms", "HIVE_SIM_FAULTS=01-01=slow@1,tester=slow")
	workers, logs := map[string]*exec.Cmd{}, map[string]*lockedBuffer{}
	folderWorker := func(name string) {
		workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker", "--only", "drive", "--repo", dir}, flags...))
	}
	folderWorker("here")
	for _, name := range []string{"there-1", "there-2"} {
		workers[name], logs[name] = cloneWorker(t, hive, bare, name, env, flags)
	}
	workerLogs := func() string { return logsOf(logs, "here", "there-1", "there-2", "here-again") }
	roles := []string{"run", "add a health check endpoint", "--roles", "architect,implementer,tester", "--no-interview", "--agent", "sim"}
	run := exec.CommandContext(ctx, hive, append(append(roles, "--local-worker=false", "--git-remote", "origin", "--repo", dir), flags...)...)
	run.Env = env
	stdout := startPiped(t, run)
	var transcript strings.Builder
	killed, cloneDriver := false, ""
	takeover := regexp.MustCompile(`the worker that drove the run is gone: \S+ \(pid ([0-9]+)\) takes it over from the journal \(driver 3\)`)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		switch m := takeover.FindStringSubmatch(line); {
		case !killed && strings.Contains(line, "running the architect's plans"):
			// Once a plan is at work in a clone, the folder's machine
			// goes: the phase goes on without it.
			planRuns := regexp.MustCompile(`[0-9]{2}-[0-9]{2} attempt [0-9]+ runs here`)
			for deadline := time.Now().Add(time.Minute); !planRuns.MatchString(logs["there-1"].String() + logs["there-2"].String()); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no plan runs in a clone:\n%s", workerLogs())
				}
			}
			killTree(workers["here"].Process.Pid)
			killed = true
		case m != nil && comeBack && cloneDriver == "":
			cloneDriver = m[1]
			folderWorker("here-again")
			// Once the clone's driver has merged the plans (its own log
			// says so), it goes: the folder's worker takes the run back.
			for _, name := range []string{"there-1", "there-2"} {
				if w, log := workers[name], logs[name]; strconv.Itoa(w.Process.Pid) == cloneDriver {
					go func() {
						for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
							if strings.Contains(log.String(), "every plan complete and merged") {
								break
							}
						}
						killTree(w.Process.Pid)
					}()
				}
			}
		}
	}
	err := run.Wait()
	got := transcript.String()
	if err != nil || !killed || !strings.Contains(got, "run 1 complete") {
		t.Fatalf("hive run with its folder's worker killed: %v\n%s\n%s", err, got, workerLogs())
	}
	if !takeover.MatchString(got) {
		t.Errorf("no clone's worker took the run over:\n%s\n%s", got, workerLogs())
	}
	clones := logs["there-1"].String() + logs["there-2"].String()
	if !regexp.MustCompile(`the phase's plans (go on|ran) in Temporal workflow`).MatchString(clones) {
		t.Errorf("no clone's worker followed the phase's workflow:\n%s", workerLogs())
	}
	var work string // the run's branch on the remote, when the work is there
	if comeBack {
		if !strings.Contains(got, "takes it over from the journal (driver 4)") || !strings.Contains(logs["here-again"].String(), "hive worker: run 1 complete") ||
			!strings.Contains(got, "the run's work is merged into main") {
			t.Fatalf("the folder did not take the run back and merge it:\n%s\n%s", got, workerLogs())
		}
	} else {
		if !strings.Contains(clones, "hive worker: run 1 complete") {
			t.Errorf("no clone's worker drove the run to its end:\n%s", workerLogs())
		}
		m := regexp.MustCompile(`bring it to your branch with: git fetch origin (hive/run-1-[0-9a-f]+/run) && git merge FETCH_HEAD`).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("the run's result does not say where its work is:\n%s", got)
		}
		work = m[1]
		git(t, dir, "fetch", "-q", "origin", work)
		git(t, dir, "merge", "-q", "--ff-only", "FETCH_HEAD")
		work = "refs/heads/" + work
	}
	subjects := git(t, dir, "log", "--format=%s", "main")
	for _, plan := range []string{"01-01", "01-02", "01-03"} {
		if n := strings.Count(subjects, "feat("+plan+")"); n != 1 {
			t.Errorf("plan %s has %d task commits on main, want 1:\n%s", plan, n, subjects)
		}
	}
	// The folder's journal has the run as it ended.
	db, err := journal.Open(filepath.Join(dir, ".hive", "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	last, ok, err := db.LatestRun(piperun.Key)
	db.Close()
	if err != nil || !ok || last.Outcome != "complete" {
		t.Errorf("the folder's journal has run %+v (%v)", last, err)
	}
	if left := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/"); strings.TrimSpace(left) != work {
		t.Errorf("the remote keeps, of the run's branches:\n%s\nwant only %q", left, work)
	}
	sameTreeAsLocalRun(t, ctx, hive, dir, roles)
	t.Logf("the run:\n%s\n%s", got, workerLogs())
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

// sharedRunOn is the branch of the bare remote that holds the run's
// worktree (hive/run-…/run).
func sharedRunOn(t *testing.T, bare string) string {
	t.Helper()
	for _, ref := range strings.Fields(git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/")) {
		if strings.HasSuffix(ref, "/run") && strings.HasPrefix(ref, "refs/heads/hive/run-1-") {
			return ref
		}
	}
	t.Fatalf("the remote has no branch of the run's worktree:\n%s", git(t, bare, "for-each-ref", "refs/heads/"))
	return ""
}

// TestTemporalPipelineOnTheOldQueueGoesOn starts a run's workflow as a
// hive from before each folder had its own queue of hive run's runs did
// (on QUEUE-run): a worker of today in the project's folder drives it to
// its end, so that a run under way survives an upgrade of hive.
func TestTemporalPipelineOnTheOldQueueGoesOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hive, dir, addr, c := temporalPipelineFixture(t, `"secrets": {"env": []}`)
	w := pipeline.Workflow{Name: "custom"}
	for _, role := range []string{"architect", "implementer", "tester"} {
		w.Steps = append(w.Steps, pipeline.Step{Role: role})
	}
	raw, err := json.Marshal(runRequest{Objective: "add a health check endpoint", Choice: runChoice{Workflow: w}, Agent: "sim", NoInterview: true})
	if err != nil {
		t.Fatal(err)
	}
	in := temporal.PipelineInput{Request: raw, Heartbeat: 10 * time.Second, Timeout: time.Hour, Drivers: pipelineDrivers}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: pipelineWorkflowID(dir), TaskQueue: "old-run"}, temporal.PipelineWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	_, out := startWorker(t, hive, append(os.Environ(), "HIVE_SIM_DELAY=10ms"), []string{"worker", "--backend", "temporal", "--temporal-address", addr, "--task-queue", "old", "--repo", dir})
	var res piperun.Result
	if err := temporal.Result(ctx, run, &res); err != nil {
		t.Fatalf("the run's workflow: %v\n%s", err, out.String())
	}
	if res.Snapshot.Outcome != pipeline.OutcomeComplete || !strings.Contains(git(t, dir, "log", "--format=%s", "main"), "feat(01-01)") {
		t.Fatalf("the run ended %s; main:\n%s\nthe worker:\n%s", res.Snapshot.Outcome, git(t, dir, "log", "--format=%s", "main"), out.String())
	}
}

// killWorkerOf SIGKILLs, with its agents, the worker that says it runs
// plan's first attempt, half a second after it says so, and returns its
// name; it waits 30 s at most for one to say it.
func killWorkerOf(t *testing.T, plan string, workers map[string]*exec.Cmd, logs map[string]*lockedBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for name, w := range workers {
			if strings.Contains(logs[name].String(), "hive worker: "+plan+" attempt 1 runs here") {
				time.Sleep(500 * time.Millisecond)
				killTree(w.Process.Pid)
				return name
			}
		}
	}
	t.Fatalf("no worker ran %s in 30 s", plan)
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
