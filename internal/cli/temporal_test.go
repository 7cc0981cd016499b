package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/demo"
	"github.com/hivectl/hive/internal/serve/views"
	"github.com/hivectl/hive/internal/testsupport/temporaltest"
)

// TestTemporalWorkersSurviveAKilledOne runs the demo phase (six plans, a
// decision and a human-verify checkpoint) on a real Temporal dev server
// with two `hive worker` processes: `hive execute-phase --backend
// temporal` starts the run, `hive answer --backend temporal` answers its
// checkpoints, and the worker that holds an agent is killed with SIGKILL,
// its agents with it, as when its machine dies. The run still completes on
// the other worker with one commit per task, and the code it leaves is the
// code a local run leaves. The workers share the repository's folder, or,
// with a git remote (a bare repository), each works in a clone of its own,
// a worktree per plan, and the merges happen there.
func TestTemporalWorkersSurviveAKilledOne(t *testing.T) {
	t.Parallel() // mostly waits: on heartbeats, the sim
	// Each subtest has its own Temporal server and repository.
	t.Run("shared-folder", func(t *testing.T) { t.Parallel(); temporalKilledWorker(t, false) })
	t.Run("git-remote", func(t *testing.T) { t.Parallel(); temporalKilledWorker(t, true) })
}

func temporalKilledWorker(t *testing.T, remote bool) {
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	addr, _ := temporaltest.Start(t)

	dir := t.TempDir()
	if err := demo.CreateWithCheckpoints(dir); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--backend", "temporal", "--temporal-address", addr, "--task-queue", "e2e"}
	backend := append(flags, "--repo", dir)
	workDirs := map[string]string{"a": dir, "b": dir}
	bare := ""
	if remote {
		bare = filepath.Join(t.TempDir(), "shared.git")
		git(t, "", "init", "-q", "--bare", bare)
		git(t, dir, "remote", "add", "origin", bare)
		git(t, dir, "push", "-q", "origin", "HEAD:refs/heads/main")
		for name := range workDirs {
			clone := filepath.Join(t.TempDir(), "worker-"+name)
			git(t, "", "clone", "-q", "--branch", "main", bare, clone)
			workDirs[name] = clone
		}
		backend = append(backend, "--git-remote", "origin")
	}
	// The first wave's plans are slow (2 s a task): the worker killed
	// while one runs must not have finished it already. A live session
	// stays up after its PLAN COMPLETE, so a worker with an agent may hold
	// a plan that is done, and then no plan is left to take over (seen
	// twice under load).
	env := append(os.Environ(), "HIVE_SIM_DELAY=200ms", "HIVE_SIM_FAULTS=01-01=slow,01-02=slow")
	workers := map[string]*exec.Cmd{}
	logs := map[string]*lockedBuffer{}
	for _, name := range []string{"a", "b"} {
		args := append([]string{"worker", "1", "--agent", "sim", "--repo", workDirs[name]}, flags...)
		if remote {
			args = append(args, "--git-remote", "origin")
		}
		workers[name], logs[name] = startWorker(t, hive, env, args)
	}
	run := exec.CommandContext(ctx, hive, append([]string{"execute-phase", "1", "--agent", "sim", "--local-worker=false"}, backend...)...)
	run.Env = env
	stdout, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// The decision is answered from hive serve's API (a phone's browser
	// would use the same), the human-verify with hive answer; with a git
	// remote both with hive answer.
	serveToken := strings.Repeat("s", 32)
	serveURL := ""
	if !remote {
		login := startServeCmd(t, dir, append(os.Environ(), tokenEnv+"="+serveToken), flags...)
		serveURL, _, _ = strings.Cut(login, "/login/")
	}
	var transcript strings.Builder
	var watch, attach *exec.Cmd
	var watched, attached lockedBuffer
	killed := ""
	answered := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		if killed == "" && strings.Contains(line, " running") {
			killed = killBusyWorker(t, workers)
			// Someone follows the run from another terminal meanwhile.
			watch = exec.CommandContext(ctx, hive, append([]string{"status", "--watch", "--repo", dir}, flags...)...)
			watch.Stdout, watch.Stderr = &watched, &watched
			if err := watch.Start(); err != nil {
				t.Fatal(err)
			}
			// And follows the last plan's agent, which waits for the others.
			attach = exec.CommandContext(ctx, hive, append([]string{"attach", "01-06", "--repo", dir}, flags...)...)
			attach.Stdout, attach.Stderr = &attached, &attached
			if err := attach.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for plan, response := range map[string]string{"01-03": "json-file", "01-04": "approved"} {
			if strings.HasPrefix(line, plan+" waits for a human") && !answered[plan] {
				answered[plan] = true
				if serveURL != "" && plan == "01-03" {
					answerThroughServe(t, serveURL, serveToken, plan, response)
					continue
				}
				// With a git remote, the human-verify is answered from a
				// worker's clone: the workflow is named by the repository,
				// not by the folder that started the run.
				from := dir
				if remote && plan == "01-04" {
					from = workDirs["b"]
				}
				out, err := exec.Command(hive, append([]string{"answer", plan, response, "--repo", from}, flags...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("hive answer %s: %v\n%s", plan, err, out)
				}
			}
		}
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("execute-phase --backend temporal: %v\n%s%s\nworker b:\n%s", err, transcript.String(), stderr.String(), logs["b"].String())
	}
	if killed == "" || !answered["01-03"] || !answered["01-04"] {
		t.Fatalf("killed a worker: %q; answered %v\n%s", killed, answered, transcript.String())
	}
	if !strings.Contains(transcript.String(), "its worker was lost (Heartbeat timeout)") {
		t.Fatalf("no plan was retried after the killed worker's heartbeat stopped:\n%s", transcript.String())
	}
	if !strings.Contains(transcript.String(), "run complete: 6 of 6 plans complete") {
		t.Fatalf("the run did not complete:\n%s", transcript.String())
	}
	if !strings.Contains(transcript.String(), "hive: phase verification: passed") {
		t.Fatalf("the run's end does not say how the phase's verification went:\n%s", transcript.String())
	}
	checkOneCommitPerTask(t, dir)
	if serveURL != "" {
		// hive serve shows the run's end from the workflow's result.
		deadline := time.Now().Add(30 * time.Second)
		for {
			runs := serveGet[[]views.RunView](t, serveURL, serveToken, "/api/runs")
			if len(runs) == 1 && runs[0].Kind == views.KindTemporal && runs[0].State == "finished" && strings.HasPrefix(runs[0].Workflow, "hive-01-core-library-") {
				// The six plans, and the phase's verification (a job of its own).
				if n := countComplete(runs[0].Items); n != 7 {
					t.Fatalf("hive serve shows %d plans and jobs complete at the end, want 7: %+v", n, runs[0].Items)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hive serve does not show the run finished: %+v", runs)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// status --watch (no terminal: the overview again on each change) ends
	// with the run, its last overview the run's end.
	if err := watch.Wait(); err != nil {
		t.Fatalf("hive status --watch --backend temporal: %v\n%s", err, watched.String())
	}
	// attach followed 01-06 from its wait to its end: in this folder when
	// the workers share it; with a git remote its log is in a worker's
	// clone, and attach says so.
	err = attach.Wait()
	switch out := attached.String(); {
	case !remote && (err != nil || !strings.Contains(out, "── 01-06 attempt 1") || !strings.HasSuffix(out, "── 01-06 is complete\n")):
		t.Fatalf("hive attach 01-06 --backend temporal: %v\n%s", err, out)
	case remote && (err == nil || !strings.Contains(out, "its agent's log is in the clone of the worker that runs it")):
		t.Fatalf("hive attach 01-06 --backend temporal, git remote: %v\n%s", err, out)
	}
	overviews := strings.Split(strings.TrimSpace(watched.String()), "\n\n")
	// The six plans, then the phase's verification, as a local run verifies.
	verified := regexp.MustCompile(`(?m)^\s*job\s+verify\s+Complete\b`)
	if last := overviews[len(overviews)-1]; len(overviews) < 2 || strings.Count(last, "Complete") != 7 || !verified.MatchString(last) {
		t.Fatalf("hive status --watch --backend temporal printed %d overviews; the last:\n%s", len(overviews), overviews[len(overviews)-1])
	}
	if remote {
		if left := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/heads/hive/"); left != "" {
			t.Errorf("the run left its branches on the remote:\n%s", left)
		}
	}
	// The verifier's report came with the work, from whichever worker
	// wrote it.
	if remote {
		if report := git(t, dir, "show", "HEAD:.planning/phases/01-core-library/01-VERIFICATION.md"); !strings.Contains(report, "status: passed") {
			t.Errorf("the verifier's report on the user's branch:\n%s", report)
		}
	}
	// hive status finds the server and the queue in the project's config.
	cfg := fmt.Sprintf(`{"backend": {"kind": "temporal", "temporal": {"address": %q, "task_queue": "e2e"}}}`, addr)
	if err := os.MkdirAll(filepath.Join(dir, ".hive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hive", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	status, err := exec.Command(hive, "status", "--repo", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(status), "Temporal workflow hive-01-core-library-") || strings.Count(string(status), "Complete") != 7 {
		t.Fatalf("hive status --backend temporal: %v\n%s", err, status)
	}
	t.Logf("worker %s killed; the run:\n%s", killed, transcript.String())

	// The same phase run locally, the same answers (--yes takes the
	// decision's first option and approves): the same code.
	local := t.TempDir()
	if err := demo.CreateWithCheckpoints(local); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, hive, "execute-phase", "1", "--agent", "sim", "--yes", "--repo", local)
	cmd.Env = append(os.Environ(), "HIVE_SIM_DELAY=1ms")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	if got, want := codeTree(t, dir), codeTree(t, local); got != want {
		t.Fatalf("the code the Temporal run left:\n%s\nthe local run's:\n%s", got, want)
	}
}

// answerThroughServe answers plan's open checkpoint through hive serve's
// JSON API, once it shows it (serve reads the workflows every second).
func answerThroughServe(t *testing.T, base, token, plan, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, cp := range serveGet[[]views.CheckpointView](t, base, token, "/api/checkpoints") {
			if cp.Plan != plan {
				continue
			}
			if !strings.HasPrefix(cp.Run, views.KindTemporal+"-") {
				t.Fatalf("hive serve shows %s's checkpoint in run %s, not in the workflow's", plan, cp.Run)
			}
			body, _ := json.Marshal(map[string]string{"answer": text})
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/runs/%s/checkpoints/%s/%d/answer", base, cp.Run, plan, cp.ID), bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("answer %s through hive serve: %d %s", plan, resp.StatusCode, reply)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hive serve shows no open checkpoint of %s", plan)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// serveGet reads one of hive serve's JSON resources.
func serveGet[T any](t *testing.T, base, token, path string) T {
	t.Helper()
	var v T
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return v
}

func countComplete(items []views.ItemView) int {
	n := 0
	for _, it := range items {
		if it.State == "complete" {
			n++
		}
	}
	return n
}

// git runs git in dir ("" for here) and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// startWorker starts `hive ARGS` (a hive worker), killed with its agents
// when the test ends, and returns its output.
func startWorker(t *testing.T, hive string, env, args []string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(hive, args...)
	cmd.Env = env
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killTree(cmd.Process.Pid) })
	return cmd, out
}

// killBusyWorker SIGKILLs the first worker that has an agent running, with
// its agents, and returns its name; it waits for one to have an agent.
func killBusyWorker(t *testing.T, workers map[string]*exec.Cmd) string {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for name, cmd := range workers {
			// An agent at work, not any child: a worker's git command, or
			// an agent whose plan has ended and that exits, leaves no plan
			// for another worker to take over (seen at load 8).
			if slices.ContainsFunc(children(cmd.Process.Pid), agentAtWork) {
				killTree(cmd.Process.Pid)
				return name
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no worker started an agent in 10 s")
	return ""
}

// killTree SIGKILLs pid and its children's process groups (an agent leads
// its own group), as when their machine dies. pid is stopped first: a
// worker that started an agent between the listing of its children and its
// own death left that agent working on, beside the one that took its plan
// over (both wrote the plan's worktree in a shared folder, and the run's
// code differed from a local run's).
func killTree(pid int) {
	syscall.Kill(pid, syscall.SIGSTOP)
	for deadline := time.Now().Add(2 * time.Second); !stopped(pid) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	for _, c := range children(pid) {
		syscall.Kill(-c, syscall.SIGKILL)
		syscall.Kill(c, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// stopped reports whether every thread of pid is stopped (or gone): only
// then can it start no other child.
func stopped(pid int) bool {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	for _, s := range stats {
		if f := statFields(s); len(f) > 0 && !strings.ContainsAny(f[0], "tTZX") {
			return false
		}
	}
	return true
}

// agentAtWork says whether pid is an agent hive started (its environment
// names its plan) that has not yet exited.
func agentAtWork(pid int) bool {
	f := statFields(fmt.Sprintf("/proc/%d/stat", pid))
	if len(f) == 0 || strings.ContainsAny(f[0], "ZXx") {
		return false
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && bytes.Contains(env, []byte("\x00HIVE_AGENT_PLAN="))
}

// children are the processes whose parent is pid.
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, s := range stats {
		if f := statFields(s); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(s))); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// statFields are the fields of a /proc stat file after the command's name
// (state, ppid, ...); the name may hold spaces, so they are read after ')'.
func statFields(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	return strings.Fields(rest)
}

// codeTree lists the committed files outside .planning with their blobs.
func codeTree(t *testing.T, dir string) string {
	out, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "HEAD").CombinedOutput()
	if err != nil {
		t.Fatalf("git ls-tree: %v\n%s", err, out)
	}
	var code []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, path, _ := strings.Cut(line, "\t"); !strings.HasPrefix(path, ".planning/") {
			code = append(code, line)
		}
	}
	return strings.Join(code, "\n")
}

// lockedBuffer is a buffer two goroutines of exec may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
