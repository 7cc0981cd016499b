package cleanup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// Clean removes everything hive left, wherever it was left, says what it
// did, and touches nothing else.
func TestCleanRemovesWhatHiveLeft(t *testing.T) {
	gittest.Isolated(t)
	ctx := context.Background()
	base := t.TempDir()
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	wtRoot := filepath.Join(base, "worktrees")

	// A killed run's worktrees, one with uncommitted work and one commit.
	runnertest.LeaveWorktrees(t, root, wtRoot)
	plan1 := filepath.Join(wtRoot, "01", "01-01")
	gittest.Run(t, plan1, "commit", "-q", "--allow-empty", "-m", "feat(01-01): half")
	// A worktree made when hive's worktree folder was elsewhere.
	oldRoot := filepath.Join(base, "old-cache", "proj-0123456789ab")
	old := filepath.Join(oldRoot, "01", "01-02")
	if err := worktrees.Add(ctx, repo, old, "hive/01/01-02", "main"); err != nil {
		t.Fatal(err)
	}
	// A worktree whose folder was deleted.
	gone := filepath.Join(base, "gone", "01", "01-03")
	if err := worktrees.Add(ctx, repo, gone, "hive/01/01-03", "main"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(base, "gone"))
	// A worktree folder of an earlier clone at this path: its .git file
	// points at a registration that is gone.
	stale := filepath.Join(wtRoot, "02", "02-01")
	gittest.WriteFile(t, filepath.Join(stale, ".git"), "gitdir: "+filepath.Join(root, ".git", "worktrees", "02-01")+"\n")
	gittest.WriteFile(t, filepath.Join(stale, "src", "old.go"), "package old\n")
	// The user's own things: a worktree on a branch of theirs, notes in
	// hive's folder.
	mine := filepath.Join(base, "feature")
	gittest.Run(t, root, "worktree", "add", "-q", "-b", "feature", mine, "main")
	notes := filepath.Join(wtRoot, "01", "notes")
	gittest.WriteFile(t, filepath.Join(notes, "todo.txt"), "mine\n")

	rep, err := Clean(ctx, repo, wtRoot)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{
		Removed:   []string{filepath.Join(wtRoot, "01", "integration"), plan1, old},
		Discarded: []string{plan1 + ": scratch.txt"},
		Pruned:    []string{gone},
		Folders:   []string{stale},
		Deleted:   []string{"hive/01/01-02", "hive/01/01-03", "hive/01/integration"},
		Left:      []string{notes + ": holds files but is no git worktree"},
	}
	slices.Sort(rep.Removed)
	slices.Sort(want.Removed)
	check := func(name string, got, want []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	check("Removed", rep.Removed, want.Removed)
	check("Discarded", rep.Discarded, want.Discarded)
	check("Pruned", rep.Pruned, want.Pruned)
	check("Folders", rep.Folders, want.Folders)
	check("Deleted", rep.Deleted, want.Deleted)
	check("Left", rep.Left, want.Left)
	if len(rep.Kept) != 1 || !strings.HasPrefix(rep.Kept[0], "hive/01/01-01: has commits not on the current branch") {
		t.Errorf("Kept = %q, want hive/01/01-01 with why", rep.Kept)
	}

	if wts := gittest.Output(t, root, "worktree", "list"); strings.Count(strings.TrimSpace(wts), "\n") != 1 || !strings.Contains(wts, mine) {
		t.Errorf("want the main tree and the user's worktree only:\n%s", wts)
	}
	for _, gone := range []string{filepath.Join(wtRoot, "02"), oldRoot} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(notes, "todo.txt")); err != nil {
		t.Errorf("the user's notes are gone: %v", err)
	}

	// Once clean, a second run finds only what it leaves on purpose.
	rep, err = Clean(ctx, repo, wtRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed)+len(rep.Pruned)+len(rep.Folders)+len(rep.Deleted)+len(rep.Discarded) != 0 || len(rep.Kept) != 1 || len(rep.Left) != 1 {
		t.Errorf("second clean: %+v", rep)
	}
	// Without the user's notes, hive's worktree folder goes too.
	os.RemoveAll(notes)
	if _, err := Clean(ctx, repo, wtRoot); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wtRoot); !os.IsNotExist(err) {
		t.Errorf("hive's empty worktree folder is still there (%v)", err)
	}
}

// A live run's worktrees and branches are left alone.
func TestCleanLeavesLiveRun(t *testing.T) {
	gittest.Isolated(t)
	ctx := context.Background()
	root := gittest.NewRepo(t, runnertest.StaleFiles())
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	wtRoot := filepath.Join(t.TempDir(), "worktrees")
	runnertest.LeaveWorktrees(t, root, wtRoot)
	release, err := lock.Phase(root, ".planning/phases/01-lib")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rep, err := Clean(ctx, repo, wtRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Live) != 2 || len(rep.Removed)+len(rep.Deleted)+len(rep.Folders) != 0 {
		t.Errorf("a live run's worktrees were touched: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(wtRoot, "01", "01-01", "scratch.txt")); err != nil {
		t.Errorf("the live run's work is gone: %v", err)
	}
}
