package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/runner/replay"
	"github.com/hivectl/hive/internal/testsupport"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary be hive itself: testscript puts it in PATH
// as "hive", and the sim agent re-executes it as `hive __sim`.
//
// The package's long tests (the scripts, chaos, the kill sweeps, Temporal)
// are parallel at the top level, so they share one pool of -parallel
// slots: a test waiting on a Temporal heartbeat leaves its core to one
// that builds, and no long test waits for the end of another's stragglers.
func TestMain(m *testing.M) {
	// The fault hooks live in the tests, built with the faults tag
	// (hooks_faults_test.go), not in the product: hive run by the tests
	// (this binary) can be killed at a crash point or given a full disk.
	installFaults()
	testscript.Main(testsupport.WithTempHome(m), map[string]func(){
		"hive": func() {
			code := Main()
			writeCrashSteps()
			os.Exit(code)
		},
	})
}

// TestScripts runs the .txtar scripts in testdata/script against the real
// binary in temporary git repositories.
func TestScripts(t *testing.T) {
	t.Parallel() // one pool with the package's other long tests (TestMain)
	testscript.Run(t, testscript.Params{
		Dir:       "testdata/script",
		Setup:     setupGitEnv,
		Condition: condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  exitCode,
			"waitfor":   waitFor,
			"waitstate": waitState,
			"waitjob":   waitJob,
			"webhook":   webhook,
		},
	})
}

// waitFor waits until every named file exists (or, negated, is gone), for
// up to 60 seconds: scripts use it to act while a background hive runs.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: waitfor FILE...")
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		done := true
		for _, a := range args {
			_, err := os.Stat(ts.MkAbs(a))
			if exists := err == nil; exists == neg {
				done = false
			}
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor %v: still not there after 60s", args)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// setupGitEnv gives the scripts a git identity and a home of their own, so
// commits work on a machine with no git configuration.
func setupGitEnv(env *testscript.Env) error {
	env.Setenv("HOME", env.WorkDir)
	env.Setenv("GIT_AUTHOR_NAME", "hive test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@hive.invalid")
	env.Setenv("GIT_COMMITTER_NAME", "hive test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@hive.invalid")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GOCACHE", os.Getenv("GOCACHE")) // a project's go test keeps the build cache (testsupport)
	// Where make python puts pytest, for a Python project's tests.
	env.Setenv("PYTHONPATH", os.Getenv("PYTHONPATH"))
	// HOME is the script's repository: what go keeps in a home (its
	// telemetry counters in .config/go, its module cache in go/) and
	// hive's cache are not the project's uncommitted changes, which a run
	// refuses. git's own excludes file (~/.config/git/ignore) says so, as
	// a user's HOME outside the project would.
	ignore := filepath.Join(env.WorkDir, ".config", "git", "ignore")
	if err := os.MkdirAll(filepath.Dir(ignore), 0o755); err != nil {
		return err
	}
	return os.WriteFile(ignore, []byte("/.config/\n/.cache/\n/go/\n"), 0o644)
}

// condition adds the scripts' own conditions: [pytest] holds where
// python3 -m pytest runs (make test provides it: make python).
func condition(cond string) (bool, error) {
	switch cond {
	case "pytest":
		return exec.Command("python3", "-m", "pytest", "--version").Run() == nil, nil
	case "faults": // the crash and full-disk hooks are built (-tags faults, as make test builds)
		return faultsBuilt, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// waitState waits until the newest run in the journal has plan PLAN in
// state STATE (complete, waiting, ...), for up to 60 seconds.
func waitState(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitstate PLAN STATE (a plan state, or progress: running with a task committed; limit waiting: the run waits for its provider)")
	}
	path := ts.MkAbs(filepath.Join(".hive", "journal.db"))
	deadline := time.Now().Add(60 * time.Second)
	last := "no journal"
	for time.Now().Before(deadline) {
		if st, err := planState(path, args[0]); err == nil {
			if st == args[1] {
				return
			}
			last = st
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitstate %s %s: still %s after 60s", args[0], args[1], last)
}

// waitJob waits until the newest run of hive run has job JOB in state
// STATE (running, waiting, done, ...), for up to 60 seconds.
func waitJob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitjob JOB STATE (a job of hive run and its state)")
	}
	path := ts.MkAbs(filepath.Join(".hive", "runs.db"))
	deadline := time.Now().Add(60 * time.Second)
	last := "no journal"
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			if st, err := jobState(path, args[0]); err == nil {
				if st == args[1] {
					return
				}
				last = st
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitjob %s %s: still %s after 60s", args[0], args[1], last)
}

func jobState(path, job string) (string, error) {
	j, err := journal.Open(path)
	if err != nil {
		return "", err
	}
	defer j.Close()
	run, ok, err := runjournal.Latest(j)
	if err != nil || !ok {
		return "", fmt.Errorf("no run")
	}
	m, err := runjournal.Replay(j, run)
	if err != nil {
		return "", err
	}
	for _, jb := range m.Snapshot().Jobs {
		if jb.ID == job {
			return string(jb.State), nil
		}
	}
	return "", fmt.Errorf("no job %s", job)
}

func planState(path, planID string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", err
	}
	j, err := journal.Open(path)
	if err != nil {
		return "", err
	}
	defer j.Close()
	runs, err := j.Runs()
	if err != nil || len(runs) == 0 {
		return "", fmt.Errorf("no run")
	}
	eng, err := replay.Run(j, runs[0])
	if err != nil {
		return "", err
	}
	if planID == phase.LimitID { // waitstate limit waiting: the run waits for its provider
		if eng.Snapshot().Limit != nil {
			return "waiting", nil
		}
		return "none", nil
	}
	for _, p := range eng.Snapshot().Plans {
		if p.Spec.ID == planID {
			if p.State == phase.Running && p.TasksDone > 0 {
				return "progress", nil // running, with a task committed
			}
			return string(p.State), nil
		}
	}
	return "", fmt.Errorf("no plan %s", planID)
}
