package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// TestTemporalPipelineSurvivesAKilledWorker runs `hive run --backend
// temporal` (implementer, tester) on a real Temporal dev server with two
// `hive worker --backend temporal` processes and no driver in the process
// that started it. The worker that drives the run is killed with SIGKILL,
// its agent with it, while the implementer works; the other worker takes
// the run over from the journal. The tester's question is answered with
// `hive answer tester`, and the run ends complete, merged into main, with
// the tree a local run leaves.
func TestTemporalPipelineSurvivesAKilledWorker(t *testing.T) {
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	addr, tc := temporaltest.Start(t)
	dir := pipelineFixture(t)
	// A stall timeout of 100 s makes the heartbeat timeout its least, 10 s:
	// the time the killed driver's run waits for the next.
	if err := os.MkdirAll(filepath.Join(dir, ".hive"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A secret (secrets.env) in a context file stays out of the history.
	const secret = "hunter2-e2e-0123456789"
	cfg := `{"timeouts": {"stall": "100s"}, "secrets": {"env": ["HIVE_E2E_TOKEN"]}}`
	if err := os.WriteFile(filepath.Join(dir, ".hive", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("the staging token is "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "e2e", "--repo", dir}
	env := append(os.Environ(), "HIVE_SIM_DELAY=1s", "HIVE_SIM_FAULTS=tester=needs-input#1", "HIVE_E2E_TOKEN="+secret)
	workers := map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	for _, name := range []string{"a", "b"} {
		workers[name], logs[name] = startWorker(t, hive, env, append([]string{"worker", "--agent", "sim"}, flags...))
	}
	workerLogs := func() string {
		var b strings.Builder
		for name, out := range logs {
			b.WriteString("worker " + name + ":\n" + out.String())
		}
		return b.String()
	}
	run := exec.CommandContext(ctx, hive, append([]string{"run", "add a health check endpoint", "-w", "quick", "--no-interview", "--agent", "sim", "--local-worker=false", "-c", notes}, flags...)...)
	run.Env = env
	stdout, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	run.Stderr = run.Stdout
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	var transcript strings.Builder
	killed, answered := "", false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		if killed == "" && strings.Contains(line, "implementer") && strings.Contains(line, "started (attempt 1)") {
			killed = killBusyWorker(t, workers)
		}
		if !answered && strings.Contains(line, "tester") && strings.Contains(line, "asks: ") {
			answered = true
			// hive status shows the question, and the workflow that drives
			// the run.
			status, err := exec.Command(hive, append([]string{"status"}, flags...)...).CombinedOutput()
			if err != nil || !strings.Contains(string(status), "Temporal workflow hive-run-") || !strings.Contains(string(status), "tester asks: ") {
				t.Fatalf("hive status --backend temporal at the tester's question: %v\n%s", err, status)
			}
			out, err := exec.Command(hive, append([]string{"answer", "tester", "the simple way"}, flags...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("hive answer tester: %v\n%s", err, out)
			}
		}
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("hive run --backend temporal: %v\n%s\n%s", err, transcript.String(), workerLogs())
	}
	got := transcript.String()
	if killed == "" || !answered {
		t.Fatalf("killed a worker: %q; answered: %v\n%s", killed, answered, got)
	}
	for _, want := range []string{"takes it over from the journal (driver 2)", "run 1 complete", "the run's work is merged into main"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the run's output lacks %q:\n%s\n%s", want, got, workerLogs())
		}
	}
	// The killed implementer's turn is done again by the next driver; the
	// tester, who finished nothing before, starts once per question.
	if n := strings.Count(got, "implementer       reported complete"); n != 1 {
		t.Errorf("the implementer reported its work %d times, want once:\n%s", n, got)
	}
	t.Logf("worker %s killed; the run:\n%s", killed, got)
	history := workflowHistory(t, tc, got)
	if strings.Contains(history, secret) || !strings.Contains(history, "the staging token is") {
		t.Fatalf("the secret of the context file reached the workflow's history, or the file did not:\n%s", history)
	}

	// The same run locally, the question's default taken with --yes: the
	// same tree on main.
	local := pipelineFixture(t)
	cmd := exec.CommandContext(ctx, hive, "run", "add a health check endpoint", "-w", "quick", "--yes", "--agent", "sim", "--repo", local)
	cmd.Env = append(os.Environ(), "HIVE_SIM_DELAY=1ms", "HIVE_SIM_FAULTS=tester=needs-input#1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	// The sim's change names the attempt that made it: here the second,
	// the killed one's turn done again; the rest is the same.
	if got, want := withoutChange(pipelineTree(t, dir)), withoutChange(pipelineTree(t, local)); got != want {
		t.Fatalf("the tree the Temporal run left:\n%s\nthe local run's:\n%s", got, want)
	}
	if change := git(t, dir, "show", "main:hive_sim_change.go"); !strings.Contains(change, "implementer/2") || strings.Contains(change, "implementer/1") {
		t.Fatalf("the change on main is not the second implementer's alone:\n%s", change)
	}
}

// withoutChange is a pipelineTree without the blob of the sim's change.
func withoutChange(tree string) string {
	var out []string
	for _, line := range strings.Split(tree, "\n") {
		if strings.HasSuffix(line, " hive_sim_change.go") {
			line = "hive_sim_change.go"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// workflowHistory is what the workflow the run's output names holds in
// its history: the payloads of its input and of its activities' inputs.
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
		for _, p := range payloads {
			b.Write(p.GetData())
			b.WriteByte('\n')
		}
	}
	return b.String()
}
