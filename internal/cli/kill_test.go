package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/demo"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/plan/load"
)

// TestKillAndResume SIGKILLs hive in the middle of execute-phase, at a
// different journal position each iteration, then runs it again: the second
// run must complete every plan with exactly one commit per task and leave no
// agent process behind. HIVE_KILL_ITERATIONS sets the count (default 8;
// `make crashpoints` runs 40). The iterations run in parallel.
func TestKillAndResume(t *testing.T) {
	t.Parallel() // one pool with the package's other long tests (TestMain)
	iterations := 8
	if s := os.Getenv("HIVE_KILL_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("HIVE_KILL_ITERATIONS=%q: %v", s, err)
		}
		iterations = n
	}
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	for i := 0; i < iterations; i++ {
		killAt := 2 + rng.IntN(44) // journal events before the kill; a demo run has 45, so some land after the last
		t.Run(fmt.Sprintf("kill-at-%d", killAt), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := demo.Create(dir); err != nil {
				t.Fatal(err)
			}
			first := exec.Command(hive, "execute-phase", "1", "--agent", "sim", "--repo", dir)
			first.Env = append(os.Environ(), "HIVE_SIM_DELAY=15ms")
			var out1 strings.Builder
			first.Stdout, first.Stderr = &out1, &out1
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { first.Process.Kill() })
			exited := make(chan error, 1)
			go func() { exited <- first.Wait() }()
			killed := waitForEvents(t, filepath.Join(dir, ".hive", "journal.db"), killAt, exited)
			unfinished := false
			if killed {
				first.Process.Kill()
				<-exited
				unfinished = runUnfinished(t, filepath.Join(dir, ".hive", "journal.db"))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			second := exec.CommandContext(ctx, hive, "execute-phase", "1", "--agent", "sim", "--repo", dir)
			second.Env = append(os.Environ(), "HIVE_SIM_DELAY=1ms")
			out2, err := second.CombinedOutput()
			if err != nil {
				t.Fatalf("second run: %v\nfirst run:\n%s\nsecond run:\n%s", err, out1.String(), out2)
			}
			if unfinished && !strings.Contains(string(out2), "resuming run 1") {
				t.Errorf("the second run did not resume the killed run:\n%s", out2)
			}
			if t.Failed() {
				return
			}
			checkOneCommitPerTask(t, dir)
			if t.Failed() {
				t.Logf("second run:\n%s", out2)
				if keep := os.Getenv("HIVE_KEEP_FAILED"); keep != "" {
					exec.Command("cp", "-a", dir, filepath.Join(keep, t.Name()[strings.LastIndex(t.Name(), "/")+1:])).Run()
				}
			}
			root, _ := worktrees.DefaultRoot(dir)
			checkNoAgentsLeft(t, dir, root)
		})
	}
}

// waitForEvents waits until the newest run in the journal has n events and
// reports true, or reports false if the process exits first.
func waitForEvents(t *testing.T, path string, n int, exited <-chan error) bool {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		case <-time.After(5 * time.Millisecond):
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		j, err := journal.Open(path)
		if err != nil {
			continue
		}
		runs, err := j.Runs()
		j.Close()
		if err == nil && len(runs) > 0 && runs[0].Events >= int64(n) {
			return true
		}
	}
	t.Fatal("the first run neither reached the kill point nor exited within 60s")
	return false
}

// runUnfinished reports whether the newest run in the journal is unfinished,
// that is whether the kill came before the run's end was recorded.
func runUnfinished(t *testing.T, path string) bool {
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil || len(runs) == 0 {
		t.Fatalf("journal after the kill: %v (%d runs)", err, len(runs))
	}
	return runs[0].Finished.IsZero()
}

// taskCommits counts the commits of each task ("01-02/3") on any branch.
func taskCommits(t *testing.T, dir string) map[string]int {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "--all", "--format=%B%x00").Output()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Task: "); ok {
			count[v]++
		}
	}
	return count
}

func checkOneCommitPerTask(t *testing.T, dir string) {
	t.Helper()
	ph, err := load.Phase(dir, ".planning/phases/01-core-library")
	if err != nil {
		t.Fatal(err)
	}
	count := taskCommits(t, dir)
	tasks := 0
	for _, p := range ph.Plans {
		for _, task := range p.Tasks {
			tasks++
			key := fmt.Sprintf("%s/%d", p.ID, task.Number)
			if count[key] != 1 {
				t.Errorf("task %s has %d commits, want exactly 1", key, count[key])
			}
		}
		if _, ok := ph.Summaries[p.ID]; !ok {
			t.Errorf("plan %s has no SUMMARY", p.ID)
		}
	}
	if tasks < 12 {
		t.Errorf("the demo phase has %d tasks; the test expects a realistic phase of at least 12", tasks)
	}
}

// checkNoAgentsLeft looks for any process still working in dir.
// checkNoAgentsLeft fails if a process still works in one of dirs (the
// repository, the worktree folders) or below.
func checkNoAgentsLeft(t *testing.T, dirs ...string) {
	t.Helper()
	var want []string
	for _, d := range dirs {
		real, _ := filepath.EvalSymlinks(d)
		want = append(want, real)
	}
	dir := strings.Join(dirs, ", ")
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
		for _, p := range procs {
			cwd, err := os.Readlink(p)
			if err != nil {
				continue
			}
			for _, w := range want {
				if w != "" && (cwd == w || strings.HasPrefix(cwd, w+"/")) {
					left = append(left, filepath.Base(filepath.Dir(p)))
				}
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still running in %s: %v", dir, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
