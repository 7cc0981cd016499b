package cleanup

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/runner/lock"
	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// Clean removes everything hive left, wherever it was left, says what it
// did, and touches nothing else.
func TestCleanRemovesWhatHiveLeft(t *testing.T) {
	isolatedHome(t)
	ctx := context.Background()
	base := t.TempDir()
	root := newRepo(t, staleFiles())
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	wtRoot := filepath.Join(base, "worktrees")

	// A killed run's worktrees, one with uncommitted work and one commit.
	leaveWorktrees(t, root, wtRoot)
	plan1 := filepath.Join(wtRoot, "01", "01-01")
	gitRun(t, plan1, "commit", "-q", "--allow-empty", "-m", "feat(01-01): half")
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
	writeFile(t, filepath.Join(stale, ".git"), "gitdir: "+filepath.Join(root, ".git", "worktrees", "02-01")+"\n")
	writeFile(t, filepath.Join(stale, "src", "old.go"), "package old\n")
	// The user's own things: a worktree on a branch of theirs, notes in
	// hive's folder.
	mine := filepath.Join(base, "feature")
	gitRun(t, root, "worktree", "add", "-q", "-b", "feature", mine, "main")
	notes := filepath.Join(wtRoot, "01", "notes")
	writeFile(t, filepath.Join(notes, "todo.txt"), "mine\n")

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

	if wts := git(t, root, "worktree", "list"); strings.Count(strings.TrimSpace(wts), "\n") != 1 || !strings.Contains(wts, mine) {
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
	isolatedHome(t)
	ctx := context.Background()
	root := newRepo(t, staleFiles())
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	wtRoot := filepath.Join(t.TempDir(), "worktrees")
	leaveWorktrees(t, root, wtRoot)
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

// staleFiles is a two-plan phase for the tests of what earlier runs left.
func staleFiles() map[string]string {
	return map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": wtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": wtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
	}
}

// isolatedHome keeps git off the real home and cache folders.
func isolatedHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// leaveWorktrees makes the worktrees a killed worktree run leaves under
// root: the integration worktree and plan 01-01's, with work in both.
func leaveWorktrees(t *testing.T, repoRoot, root string) {
	t.Helper()
	ctx := context.Background()
	repo, err := gitx.Open(ctx, repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	integ := filepath.Join(root, "01", "integration")
	if err := worktrees.Add(ctx, repo, integ, "hive/01/integration", "HEAD"); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(root, "01", "01-01")
	if err := worktrees.Add(ctx, repo, plan, "hive/01/01-01", "hive/01/integration"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plan, "scratch.txt"), []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// newRepo makes a git repository with the given files and one commit.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@hive.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@hive.invalid")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// wtPlan is a plan of phase 01-lib with one auto task writing files.
func wtPlan(num string, wave int, deps []string, files []string, mustHaves string) string {
	return fmt.Sprintf(`---
phase: 01-lib
plan: %s
type: execute
wave: %d
depends_on: [%s]
files_modified: [%s]
autonomous: true
%s---
<objective>Plan %s of the library</objective>
<tasks>
<task type="auto"><name>Task 1: write %s</name><files>%s</files><action>write</action><done>written</done></task>
</tasks>
`, num, wave, strings.Join(deps, ", "), strings.Join(files, ", "), mustHaves, num, strings.Join(files, ", "), strings.Join(files, ", "))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
