package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/demo"
	"github.com/hivectl/hive/internal/gitx/worktrees"
)

// TestCrashPoints kills hive at its Nth durable step (a journal append, a
// file write, a git command, a named crash point) of a representative run,
// the demo phase: six plans in three waves, in worktrees, a decision and a
// human-verify checkpoint answered by --yes, merges, a merge conflict that a
// resolver agent resolves (the two plans of wave 3 both add to README.md),
// the post-merge tracking and the phase verification with its verifier
// agent. Then it runs
// hive again, as a user would, and checks that the run finishes complete,
// with one commit per task, the checkpoints' answers kept, no refusal and no
// agent left.
//
// A first run counts the steps. `make test` kills at an evenly spread
// sample of them (HIVE_CRASH_SAMPLE, default 6); HIVE_CRASH_SAMPLE=all
// (`make crashpoints`) kills at every one.
func TestCrashPoints(t *testing.T) {
	needFaults(t)
	t.Parallel() // one pool with the package's other long tests (TestMain)
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	count := filepath.Join(t.TempDir(), "steps")
	dir := t.TempDir()
	out, err := crashRun(t, hive, dir, "HIVE_CRASH_STEPS_FILE="+count)
	if err != nil {
		t.Fatalf("the counting run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "comb agent started") {
		t.Fatalf("the counting run started no resolver: the representative run must resolve a conflict\n%s", out)
	}
	checkConflictResolved(t, dir)
	data, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	total, err := strconv.Atoi(string(data))
	if err != nil || total < 50 {
		t.Fatalf("the counting run took %q durable steps: too few for the demo phase", data)
	}
	var points []int
	switch s := os.Getenv("HIVE_CRASH_SAMPLE"); {
	case os.Getenv("HIVE_CRASH_STEPS") != "": // replay: HIVE_CRASH_STEPS=310,320
		for _, f := range strings.Split(os.Getenv("HIVE_CRASH_STEPS"), ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("HIVE_CRASH_STEPS=%q: step numbers, comma-separated", os.Getenv("HIVE_CRASH_STEPS"))
			}
			points = append(points, n)
		}
	case s == "all":
		for n := 1; n <= total; n++ {
			points = append(points, n)
		}
	default:
		k := 6
		if s != "" {
			if k, err = strconv.Atoi(s); err != nil || k < 1 {
				t.Fatalf("HIVE_CRASH_SAMPLE=%q: a count or all", s)
			}
		}
		for i := 0; i < k; i++ {
			points = append(points, 1+(total-1)*i/max(k-1, 1))
		}
	}
	t.Logf("the demo run takes %d durable steps; killing at %d of them", total, len(points))
	t.Run("steps", func(t *testing.T) {
		for _, n := range points {
			t.Run(fmt.Sprintf("step-%d", n), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				out1, err := crashRun(t, hive, dir, fmt.Sprintf("HIVE_CRASH_STEP=%d", n))
				killed := err != nil && strings.Contains(err.Error(), "killed")
				if err != nil && !killed {
					t.Fatalf("the first run failed without being killed: %v\n%s", err, out1)
				}
				if keep := os.Getenv("HIVE_KEEP_FAILED"); keep != "" { // the tree as the kill left it
					exec.Command("cp", "-a", dir, filepath.Join(keep, fmt.Sprintf("step-%d", n))).Run()
				}
				out2, err := crashRun(t, hive, dir)
				if err != nil {
					t.Fatalf("the run after the kill at step %d: %v\nfirst run:\n%s\nsecond run:\n%s", n, err, out1, out2)
				}
				if killed && !strings.Contains(out2, "Execution Complete") && !strings.Contains(out2, "nothing to do") {
					t.Errorf("the run after the kill at step %d did not finish the phase:\n%s", n, out2)
				}
				checkOneCommitPerTask(t, dir)
				checkAnswersKept(t, dir)
				checkConflictResolved(t, dir)
				root, _ := worktrees.DefaultRoot(dir)
				checkNoAgentsLeft(t, dir, root)
				if t.Failed() {
					t.Logf("first run:\n%s\nsecond run:\n%s\nreplay with HIVE_CRASH_STEPS=%d", out1, out2, n)
				}
			})
		}
	})
}

// crashRun makes the demo project in dir (once) and runs its phase there,
// unattended, with the sim agent and the extra environment.
func crashRun(t *testing.T, hive, dir string, env ...string) (string, error) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".planning")); err != nil {
		createConflictingDemo(t, dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, hive, "execute-phase", "1", "--agent", "sim", "--yes", "--repo", dir)
	cmd.Env = append(append(os.Environ(), "HIVE_SIM_DELAY=1ms"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// createConflictingDemo makes the demo project with checkpoints, where plan
// 01-05's second task writes README.md beside main.go. Plan 01-06 of the
// same wave adds to README.md too, without either declaring the other's
// file, so the second merge conflicts and a resolver agent resolves it.
func createConflictingDemo(t *testing.T, dir string) {
	t.Helper()
	if err := demo.CreateWithCheckpoints(dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, demo.PhaseDir, "01-05-PLAN.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "<files>main.go</files>", "<files>main.go, README.md</files>", 1)
	if changed == string(data) {
		t.Fatalf("%s has no task writing main.go any more: choose another task to conflict", file)
	}
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "plans 01-05 and 01-06 both add to README.md"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// checkConflictResolved: README.md on main has both conflicting plans'
// lines and no conflict marker.
func checkConflictResolved(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "show", "main:README.md").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hive-sim 01-05/2:", "hive-sim 01-06/3:"} {
		if n := strings.Count(string(out), want); n != 1 {
			t.Errorf("README.md on main has %d lines %q, want 1", n, want)
		}
	}
	if strings.Contains(string(out), "<<<<<<<") {
		t.Errorf("README.md on main has a conflict marker:\n%s", out)
	}
}

// checkAnswersKept: each of the demo's two checkpoints was answered once,
// and the agent that got the answer acted on it once: the decision's
// choice (--yes takes its first option) and the human check are each one
// commit on the user's branch.
func checkAnswersKept(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "--format=%s", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"chore(01-03): decision json-file", "chore(01-04): verified "} {
		if n := strings.Count(string(out), want); n != 1 {
			t.Errorf("%d commits %q on main, want 1:\n%s", n, want, out)
		}
	}
}
