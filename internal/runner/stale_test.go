package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

func checkFinished(t *testing.T, root string, res Result, err error, obs *recorder) {
	t.Helper()
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("Run = %v, outcome %q\n%s", err, res.Snapshot.Outcome, obs)
	}
	if wts := strings.TrimSpace(gittest.Output(t, root, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", wts)
	}
	for _, f := range []string{"src/p01.go", "src/p02.go"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the phase's work is not on the user's branch: %v", err)
		}
	}
}

// The user deleted the repository and cloned it again at the same path:
// hive's worktree folder still holds the earlier clone's worktrees, which
// git would refuse to overwrite ("already exists"). The run removes them,
// says so, and completes.
func TestRunAfterRecloneAtSamePath(t *testing.T) {
	gittest.Isolated(t)
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	runnertest.LeaveWorktrees(t, root, o.Git.WorktreeRoot)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for name, body := range runnertest.StaleFiles() {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Run(t, root, "init", "-q", "-b", "main")
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", "initial")

	obs := &recorder{}
	o.Observer = obs
	res, err := Run(context.Background(), o)
	checkFinished(t, root, res, err, obs)
	for _, want := range []string{
		"note  removed stale folder " + filepath.Join(o.Git.WorktreeRoot, "01", "integration"),
		"note 01-01 removed stale folder " + filepath.Join(o.Git.WorktreeRoot, "01", "01-01"),
	} {
		if !strings.Contains(obs.String(), want) {
			t.Errorf("no note %q:\n%s", want, obs)
		}
	}
}

// .hive/ was deleted (the journal is gone) and hive's worktree folder is
// not where it was (another cache folder, or the repository moved): the
// branches are still checked out in the old worktrees, and git would say
// "'hive/01/integration' is already checked out at …". The run moves them,
// says so, and completes.
func TestRunWithWorktreesAtAnOldRoot(t *testing.T) {
	gittest.Isolated(t)
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	old := filepath.Join(t.TempDir(), "old-cache", "lib-0123456789ab")
	runnertest.LeaveWorktrees(t, root, old)
	os.RemoveAll(filepath.Join(root, ".hive"))

	obs := &recorder{}
	o.Observer = obs
	res, err := Run(context.Background(), o)
	checkFinished(t, root, res, err, obs)
	if want := "note  moved worktree of hive/01/integration from " + filepath.Join(old, "01", "integration"); !strings.Contains(obs.String(), want) {
		t.Errorf("no note %q:\n%s", want, obs)
	}
}

// .hive/ was deleted after a killed run (the journal is gone) while its
// worktrees and hive/ branches are still registered where they were, the
// integration worktree halfway through a merge: a new run takes them over
// and completes.
func TestRunAfterHiveFolderDeleted(t *testing.T) {
	gittest.Isolated(t)
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	runnertest.LeaveWorktrees(t, root, o.Git.WorktreeRoot)
	plan := filepath.Join(o.Git.WorktreeRoot, "01", "01-01")
	gittest.WriteFile(t, filepath.Join(plan, "src", "p01.go"), "package src\n")
	gittest.Run(t, plan, "add", "src/p01.go")
	gittest.Run(t, plan, "commit", "-q", "-m", "feat(01-01): p01")
	gittest.Run(t, filepath.Join(o.Git.WorktreeRoot, "01", "integration"), "merge", "--no-ff", "--no-commit", "hive/01/01-01")
	// o's journal is a new one: the killed run's went with .hive/.
	obs := &recorder{}
	o.Observer = obs
	res, err := Run(context.Background(), o)
	checkFinished(t, root, res, err, obs)
}

// The killed run's worktree folders were deleted (the cache was cleared):
// git still has them registered, holding the branches. The run forgets them,
// saying so, and completes.
func TestRunAfterWorktreeFoldersDeleted(t *testing.T) {
	gittest.Isolated(t)
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	o := worktreeOptions(t, root, simLauncher(t), &recorder{})
	runnertest.LeaveWorktrees(t, root, o.Git.WorktreeRoot)
	if err := os.RemoveAll(o.Git.WorktreeRoot); err != nil {
		t.Fatal(err)
	}
	obs := &recorder{}
	o.Observer = obs
	res, err := Run(context.Background(), o)
	checkFinished(t, root, res, err, obs)
	for _, id := range []string{"integration", "01-01"} {
		if want := "note  forgot worktree " + filepath.Join(o.Git.WorktreeRoot, "01", id); !strings.Contains(obs.String(), want) {
			t.Errorf("no note %q:\n%s", want, obs)
		}
	}
}
