package temporalbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/bench/runnerbench"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/temporal"
)

// The temporal group's shape: workers polling the run's task queue, and
// agents at once in both runs (two a worker; the overhead group's
// concurrency). The Temporal run is bound by round trips, not CPU: with
// one agent a worker it takes about twice as long, the local run no longer.
const (
	temporalWorkers = 4
	temporalAgents  = runnerbench.OverheadConcurrency
	temporalQueue   = "hive-bench"
)

// Rows measures what the Temporal backend costs: the same phase of
// instant sim agents run by the local runner and through a Temporal dev
// server (in memory, on loopback) with four workers in this process, one
// after the other, and the difference per plan.
func Rows(ctx context.Context, o report.Options) []report.Row {
	n := 200
	if o.Quick {
		n = 40
	}
	localName := fmt.Sprintf("local runner makespan, %d plans", n)
	remoteName := fmt.Sprintf("Temporal makespan, %d plans, %d workers", n, temporalWorkers)
	cli, err := findTemporalCLI(o.Temporal)
	if err != nil {
		return []report.Row{{Group: "temporal", Name: remoteName, Figure: "-", Status: report.Skipped, Note: err.Error()}}
	}
	d := project.RandomDAG(n, o.Seed)
	local, err := temporalLocal(ctx, o, d)
	if err != nil {
		return []report.Row{report.ErrorRow("temporal", localName, err)}
	}
	rows := []report.Row{{Group: "temporal", Name: localName, Value: local.Seconds(), Unit: "s",
		Figure: fmt.Sprintf("%.2f s", local.Seconds()), Target: "-", Status: report.Info,
		Note: fmt.Sprintf("instant sim agents, %d at once, SQLite journal, spot-checks", temporalAgents)}}
	remote, err := temporalRemote(ctx, o, d, cli)
	if err != nil {
		return append(rows, report.ErrorRow("temporal", remoteName, err))
	}
	per := (remote - local) / time.Duration(n)
	rows = append(rows,
		report.Row{Group: "temporal", Name: remoteName, Value: remote.Seconds(), Unit: "s",
			Figure: fmt.Sprintf("%.2f s", remote.Seconds()), Target: "-", Status: report.Info,
			Note: fmt.Sprintf("the same phase as a workflow on a dev server (in memory, loopback), %d agents at once, %d in-process workers on one task queue; from reading the phase to the workflow's result",
				temporalAgents, temporalWorkers)},
		report.Row{Group: "temporal", Name: "Temporal makespan / local", Value: ratio(remote, local), Unit: "ratio",
			Figure: fmt.Sprintf("%.2f×", ratio(remote, local)), Target: "-", Status: report.Info},
		report.Row{Group: "temporal", Name: "Temporal orchestration overhead per plan", Value: ms(per), Unit: "ms",
			Figure: fmt.Sprintf("%+.1f ms/plan", ms(per)), Target: "-", Status: report.Info,
			Note: fmt.Sprintf("(Temporal − local) / %d plans: signals, activities, history, polling", n)})
	return append(rows, temporalRunRows(ctx, o, cli)...)
}

// temporalLocal runs d's phase with the local runner, as the overhead
// group does, and returns its wall time.
func temporalLocal(ctx context.Context, o report.Options, d project.DAG) (time.Duration, error) {
	proj, remove, err := project.TempProject(ctx, "hive-bench-local-", d)
	if err != nil {
		return 0, err
	}
	defer remove()
	return runnerbench.RunPhase(ctx, proj, adapter.Sim{Bin: o.HiveBin, Env: runnerbench.InstantEnv}, temporalAgents, false)
}

// temporalRemote runs d's phase through a Temporal dev server with
// temporalWorkers workers, each registering what `hive worker` does, and
// returns the time from reading the phase (as execute-phase does) to the
// workflow's result. The server and the workers are ready before.
func temporalRemote(ctx context.Context, o report.Options, d project.DAG, cli string) (time.Duration, error) {
	proj, remove, err := project.TempProject(ctx, "hive-bench-temporal-", d)
	if err != nil {
		return 0, err
	}
	defer remove()
	logs := io.Discard
	if o.Log != nil {
		logs = o.Log
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError})))
	srv, err := startDevServer(ctx, cli, logger)
	if err != nil {
		return 0, err
	}
	defer srv.stop()
	c := srv.client
	opts := runner.Options{
		Repo:     proj.Repo,
		Phase:    proj.Phase,
		Schedule: runner.Schedule{MaxConcurrent: temporalAgents, Dynamic: true, Since: proj.Base},
		Agents:   runner.Agents{Launcher: adapter.Sim{Bin: o.HiveBin, Env: runnerbench.InstantEnv}},
		Human:    runner.Human{AutoAnswer: true},
	}
	for i := range temporalWorkers {
		runs, err := runner.NewWorker(opts)
		if err != nil {
			return 0, err
		}
		defer runs.Close()
		w := temporal.NewWorkers(c, temporalQueue, runs, worker.Options{Identity: fmt.Sprintf("hive-bench-worker-%d", i+1)})
		if err := w.Start(); err != nil {
			return 0, fmt.Errorf("worker %d: %w", i+1, err)
		}
		defer w.Stop()
	}
	start := time.Now()
	spec, err := runner.PhaseSpec(ctx, opts)
	if err != nil {
		return 0, err
	}
	in := temporal.RunInput{Dispatch: &temporal.Dispatch{TaskQueue: temporalQueue, Heartbeat: 30 * time.Second, Session: time.Hour, Command: 10 * time.Minute}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hive-bench-temporal", TaskQueue: temporalQueue}, temporal.RunWorkflowName, in)
	if err != nil {
		return 0, fmt.Errorf("start the run's workflow: %w", err)
	}
	ev := phase.Event{Type: phase.EvRunStarted, Time: time.Now().UTC(), Spec: &spec, Version: phase.Version}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.EventSignal, ev); err != nil {
		return 0, fmt.Errorf("start the run: %w", err)
	}
	var res temporal.RunResult
	if err := temporal.Result(ctx, run, &res); err != nil {
		return 0, fmt.Errorf("the run's workflow: %w", err)
	}
	wall := time.Since(start)
	if res.State == nil {
		return wall, errors.New("the run's workflow ended without its state")
	}
	final, err := engine.Restore(*res.State)
	if err != nil {
		return wall, err
	}
	if s := final.Snapshot(); s.Outcome != phase.OutcomeComplete {
		return wall, fmt.Errorf("the run ended %s: %d of %d plans complete%s", s.Outcome, s.Count(phase.Complete), len(s.Plans), runnerbench.FirstReason(s))
	}
	return wall, nil
}

// findTemporalCLI finds the temporal CLI that starts the dev server: path,
// else $HIVE_TEMPORAL, else .tools/temporal/temporal in the current folder
// or one above it (where `make temporal` builds it), else temporal in PATH.
func findTemporalCLI(path string) (string, error) {
	candidates := []string{path, os.Getenv("HIVE_TEMPORAL")}
	if path != "" {
		candidates = candidates[:1] // named: that one or none
	}
	if wd, err := os.Getwd(); err == nil && path == "" {
		for dir := wd; ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, ".tools", "temporal", "temporal"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if path == "" {
		candidates = append(candidates, "temporal")
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if found, err := exec.LookPath(p); err == nil {
			return filepath.Abs(found)
		}
	}
	if path != "" {
		return "", fmt.Errorf("no temporal CLI at %s: build it with `make temporal` (into .tools/temporal)", path)
	}
	return "", errors.New("temporal CLI not found: build it with `make temporal` (into .tools/temporal), or name it with --temporal-cli or HIVE_TEMPORAL")
}

// devServer is a Temporal dev server this process started, in memory on
// loopback ports of its own, and a client of its default namespace.
type devServer struct {
	addr   string // host:port of its frontend
	cmd    *exec.Cmd
	exited chan struct{}
	client client.Client
}

// startDevServer starts the CLI's dev server and waits, up to a minute,
// until a client connects.
func startDevServer(ctx context.Context, cli string, logger log.Logger) (*devServer, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + ports[0]
	cmd := exec.Command(cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", ports[0], "--http-port", ports[1], "--metrics-port", ports[2],
		"--namespace", "default", "--log-level", "error",
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false")
	out := &tailBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the Temporal dev server: %w", err)
	}
	s := &devServer{addr: addr, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(time.Minute)
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := client.DialContext(dctx, client.Options{HostPort: addr, Namespace: "default", Logger: logger})
		cancel()
		if err == nil {
			s.client = c
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("the Temporal dev server (%s) exited: %s", cli, strings.TrimSpace(out.String()))
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("the Temporal dev server at %s did not answer within a minute: %v", addr, err)
		}
	}
}

// stop closes the client and stops the server: an interrupt, then a kill
// after five seconds.
func (s *devServer) stop() {
	if s.client != nil {
		s.client.Close()
	}
	stopProcess(s.cmd, s.exited)
}

// stopProcess interrupts cmd and kills it if it has not exited (closed
// exited) within five seconds.
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}) {
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		cmd.Process.Kill()
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// freePorts are n distinct loopback ports nothing listens on now.
func freePorts(n int) ([]string, error) {
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio is a / b, as makespanbench and runnerbench have it too.
func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
