package temporalbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/log"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
)

// temporalRunQueue is the task queue of the `hive worker` processes that
// run the temporal group's `hive run`s.
const temporalRunQueue = "hive-bench-runs"

// temporalRunRows measures what the Temporal backend costs `hive run`: n
// runs of the quick workflow (one implementer, then the build and the
// tests) with sim agents that never wait, one after the other, driven first by
// hive itself (the local host), then through a dev server by
// temporalWorkers `hive worker` processes of the project. Both sides start
// the same hive binary for each run, in a project of their own, after one
// unmeasured run that warms the Go build cache and the workers' pollers.
func temporalRunRows(ctx context.Context, o report.Options, cli string) []report.Row {
	n := 20
	if o.Quick {
		n = 3
	}
	localName := fmt.Sprintf("hive run makespan, %d quick runs, local", n)
	remoteName := fmt.Sprintf("hive run makespan, %d quick runs, Temporal, %d workers", n, temporalWorkers)
	local, err := quickRuns(ctx, o, n, nil)
	if err != nil {
		return []report.Row{report.ErrorRow("temporal", localName, err)}
	}
	rows := []report.Row{{Group: "temporal", Name: localName, Value: local.Seconds(), Unit: "s",
		Figure: fmt.Sprintf("%.2f s", local.Seconds()), Target: "-", Status: report.Info,
		Note: "`hive run -w quick --agent sim`, sim agents without delays, one run after another, each to its merge"}}
	logs := io.Discard
	if o.Log != nil {
		logs = o.Log
	}
	srv, err := startDevServer(ctx, cli, log.NewStructuredLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError}))))
	if err != nil {
		return append(rows, report.ErrorRow("temporal", remoteName, err))
	}
	defer srv.stop()
	remote, err := quickRuns(ctx, o, n, []string{"--backend", "temporal", "--temporal-address", srv.addr, "--task-queue", temporalRunQueue})
	if err != nil {
		return append(rows, report.ErrorRow("temporal", remoteName, err))
	}
	per := (remote - local) / time.Duration(n)
	return append(rows,
		report.Row{Group: "temporal", Name: remoteName, Value: remote.Seconds(), Unit: "s",
			Figure: fmt.Sprintf("%.2f s", remote.Seconds()), Target: "-", Status: report.Info,
			Note: fmt.Sprintf("the same runs with --backend temporal on a dev server (in memory, loopback), %d `hive worker` processes of the project", temporalWorkers)},
		report.Row{Group: "temporal", Name: "hive run Temporal makespan / local", Value: ratio(remote, local), Unit: "ratio",
			Figure: fmt.Sprintf("%.2f×", ratio(remote, local)), Target: "-", Status: report.Info},
		report.Row{Group: "temporal", Name: "hive run Temporal overhead per run", Value: ms(per), Unit: "ms",
			Figure: fmt.Sprintf("%+.0f ms/run", ms(per)), Target: "-", Status: report.Info,
			Note: fmt.Sprintf("(Temporal − local) / %d runs", n)})
}

// quickProject is the Go project the quick runs change: a module with one
// passing test, which the quick workflow's build and tests run.
var quickProject = map[string]string{
	"go.mod":       "module example.com/benchrun\n\ngo 1.22\n",
	"main.go":      "package main\n\nfunc main() {}\n",
	"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestBuilt(t *testing.T) {}\n",
}

// quickRuns runs `hive run` with flags n+1 times, one after the other, in
// a new quickProject, and returns how long the last n took. With flags
// that name a backend, temporalWorkers `hive worker` processes of the
// project, with the same flags, run them.
func quickRuns(ctx context.Context, o report.Options, n int, flags []string) (time.Duration, error) {
	bin := o.HiveBin
	if bin == "" {
		var err error
		if bin, err = adapter.SelfPath(); err != nil {
			return 0, err
		}
	}
	dir, err := os.MkdirTemp("", "hive-bench-run-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	for name, text := range quickProject {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	if err := project.CommitAll(ctx, dir, "bench: a project to run hive run in"); err != nil {
		return 0, err
	}
	// The roles' sim agents work without a delay (the plans' instant mode
	// is not theirs: a role's prompt holds no plan).
	env := os.Environ()
	if len(flags) > 0 {
		for i := range temporalWorkers {
			w, err := startHiveWorker(ctx, bin, dir, env, flags)
			if err != nil {
				return 0, fmt.Errorf("hive worker %d: %w", i+1, err)
			}
			defer w.stop()
		}
		flags = append(flags, "--local-worker=false")
	}
	run := func(i int) error {
		args := append([]string{"run", fmt.Sprintf("add endpoint %d", i), "-w", "quick", "--agent", "sim", "--yes",
			"--no-interview", "--no-tui", "--checkpoint-wait", "0", "--repo", dir}, flags...)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err == nil && !bytes.Contains(out, fmt.Appendf(nil, "run %d complete", i)) {
			err = fmt.Errorf("it did not say run %d complete", i)
		}
		if err != nil {
			return fmt.Errorf("hive %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 15))
		}
		return nil
	}
	if err := run(1); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 2; i <= n+1; i++ {
		if err := run(i); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// hiveWorker is a `hive worker` process the bench started.
type hiveWorker struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startHiveWorker starts `hive worker` of the project in dir with flags.
func startHiveWorker(ctx context.Context, bin, dir string, env, flags []string) (*hiveWorker, error) {
	cmd := exec.Command(bin, append([]string{"worker", "--repo", dir}, flags...)...)
	cmd.Env = env
	out := &tailBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &hiveWorker{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(w.exited) }()
	select {
	case <-w.exited:
		return nil, fmt.Errorf("exited at once: %s", strings.TrimSpace(out.String()))
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
	}
	return w, nil
}

// stop interrupts the worker, and kills it if it has not gone in five
// seconds.
func (w *hiveWorker) stop() { stopProcess(w.cmd, w.exited) }

// lastLines is the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
