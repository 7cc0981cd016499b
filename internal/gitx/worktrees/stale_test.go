package worktrees

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// notes collects what Add says it did.
type notes []string

func (n *notes) ctx() context.Context {
	return WithNotes(context.Background(), func(s string) { *n = append(*n, s) })
}

func (n notes) has(t *testing.T, words ...string) {
	t.Helper()
	all := strings.Join(n, "\n")
	for _, w := range words {
		if !strings.Contains(all, w) {
			t.Errorf("no note says %q: %q", w, n)
		}
	}
	for _, line := range n {
		if strings.Contains(line, "\n") {
			t.Errorf("a note of more than one line: %q", line)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The user deleted the repository and cloned it again at the same place:
// hive's worktree folder (keyed by the repository's path) still holds the
// old worktrees, which the new repository does not know. git would say
// "already exists"; the stale folder goes, with a note.
func TestAddWorktreeAfterRecloneAtSamePath(t *testing.T) {
	gittest.Isolated(t)
	dir := filepath.Join(t.TempDir(), "proj")
	r := gittest.InitRepo(t, dir)
	root := filepath.Join(t.TempDir(), "worktrees")
	path := filepath.Join(root, "01", "01-01")
	if err := Add(context.Background(), r, path, "hive/01/01-01", "main"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(path, "half-done.go"), "package x\n")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r = gittest.InitRepo(t, dir)

	var n notes
	if err := Add(n.ctx(), r, path, "hive/01/01-01", "main"); err != nil {
		t.Fatalf("add over the earlier clone's worktree: %v", err)
	}
	n.has(t, "removed stale folder "+path, "earlier repository")
	if wt := worktreeAt(t, r, path); wt == nil || wt.Branch != "hive/01/01-01" {
		t.Fatalf("worktree not made: %+v", wt)
	}
	if _, err := os.Stat(filepath.Join(path, "half-done.go")); !os.IsNotExist(err) {
		t.Errorf("the stale folder's files are still there: %v", err)
	}
}

// The worktree folder of a registration holding the branch was deleted
// (another worktree folder than the one asked for): git would say the branch
// "is already checked out at" the gone folder. The registration is pruned.
func TestAddWorktreeBranchHeldByDeletedFolder(t *testing.T) {
	gittest.Isolated(t)
	r := gittest.InitRepo(t, filepath.Join(t.TempDir(), "proj"))
	ctx := context.Background()
	old := filepath.Join(t.TempDir(), "old-root", "01", "01-02")
	if err := Add(ctx, r, old, "hive/01/01-02", "main"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(filepath.Dir(old))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "new-root", "01", "01-02")
	var n notes
	if err := Add(n.ctx(), r, path, "hive/01/01-02", "main"); err != nil {
		t.Fatalf("add while a deleted folder holds the branch: %v", err)
	}
	n.has(t, "forgot worktree "+old, "folder is gone")
	if wt := worktreeAt(t, r, path); wt == nil || wt.Branch != "hive/01/01-02" {
		t.Fatalf("worktree not made: %+v", wt)
	}
}

// hive's worktree folder moved (another cache folder, git.worktree_dir
// changed, the repository moved): the worktree of the branch at the old
// place moves to the new one with its uncommitted work.
func TestAddWorktreeMovesWorktreeFromOldRoot(t *testing.T) {
	for _, moveRepo := range []bool{false, true} {
		name := "worktree folder changed"
		if moveRepo {
			name = "repository moved"
		}
		t.Run(name, func(t *testing.T) {
			gittest.Isolated(t)
			base := t.TempDir()
			r := gittest.InitRepo(t, filepath.Join(base, "proj"))
			ctx := context.Background()
			old := filepath.Join(base, "cache-a", "proj-1111", "01", "integration")
			if err := Add(ctx, r, old, "hive/01/integration", "main"); err != nil {
				t.Fatal(err)
			}
			if _, err := run(ctx, old, "commit", "-q", "--allow-empty", "-m", "merged 01-01"); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(old, "resolving.go"), "package x\n")
			if moveRepo {
				if err := os.Rename(filepath.Join(base, "proj"), filepath.Join(base, "proj2")); err != nil {
					t.Fatal(err)
				}
				var err error
				if r, err = gitx.Open(ctx, filepath.Join(base, "proj2")); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(base, "cache-b", "proj-2222", "01", "integration")
			var n notes
			if err := Add(n.ctx(), r, path, "hive/01/integration", "main"); err != nil {
				t.Fatalf("add while the old root's worktree holds the branch: %v", err)
			}
			n.has(t, "moved worktree of hive/01/integration from "+old+" to "+path)
			if wt := worktreeAt(t, r, path); wt == nil || wt.Branch != "hive/01/integration" {
				t.Fatalf("worktree not at the new place: %+v", wt)
			}
			if _, err := os.Stat(filepath.Join(path, "resolving.go")); err != nil {
				t.Errorf("the uncommitted file did not move with the worktree: %v", err)
			}
			if subj, _ := run(ctx, path, "log", "-1", "--format=%s"); strings.TrimSpace(subj) != "merged 01-01" {
				t.Errorf("the branch lost its commit: %q", subj)
			}
		})
	}
}

// A worktree that cannot be moved (git keeps it locked) and holds
// uncommitted changes is left as it is, with an error saying what to do.
func TestAddWorktreeKeepsUncommittedWork(t *testing.T) {
	gittest.Isolated(t)
	base := t.TempDir()
	r := gittest.InitRepo(t, filepath.Join(base, "proj"))
	ctx := context.Background()
	old := filepath.Join(base, "a", "01", "01-03")
	if err := Add(ctx, r, old, "hive/01/01-03", "main"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(old, "work.go"), "package x\n")
	if _, err := r.Git(ctx, "worktree", "lock", "--reason", "on a removable disk", "--", old); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "b", "01", "01-03")
	err := Add(ctx, r, path, "hive/01/01-03", "main")
	if err == nil || !strings.Contains(err.Error(), "uncommitted changes (work.go)") || !strings.Contains(err.Error(), "git worktree remove "+old) {
		t.Fatalf("got %v, want a refusal naming the uncommitted file and the fix", err)
	}
	if _, err := os.Stat(filepath.Join(old, "work.go")); err != nil {
		t.Errorf("the uncommitted work is gone: %v", err)
	}
	// Without changes the locked worktree is still the user's to unlock.
	os.Remove(filepath.Join(old, "work.go"))
	if err := Add(ctx, r, path, "hive/01/01-03", "main"); err == nil || !strings.Contains(err.Error(), "git worktree unlock "+old) {
		t.Fatalf("got %v, want a refusal saying how to unlock", err)
	}
}

// What hive did not make is never removed: the branch in the user's own
// worktree or main tree, plain files, a live worktree of another
// repository.
func TestAddWorktreeLeavesWhatIsNotHive(t *testing.T) {
	gittest.Isolated(t)
	base := t.TempDir()
	r := gittest.InitRepo(t, filepath.Join(base, "proj"))
	ctx := context.Background()
	root := filepath.Join(base, "worktrees")

	mine := filepath.Join(base, "inspect")
	if _, err := r.Git(ctx, "worktree", "add", "-q", "-b", "hive/01/01-04", "--", mine, "main"); err != nil {
		t.Fatal(err)
	}
	err := Add(ctx, r, filepath.Join(root, "01", "01-04"), "hive/01/01-04", "main")
	if err == nil || !strings.Contains(err.Error(), "your worktree "+mine) {
		t.Errorf("branch in the user's worktree: got %v", err)
	}
	if worktreeAt(t, r, mine) == nil {
		t.Error("the user's worktree was removed")
	}

	if _, err := r.Git(ctx, "switch", "-q", "-c", "hive/01/01-05"); err != nil {
		t.Fatal(err)
	}
	err = Add(ctx, r, filepath.Join(root, "01", "01-05"), "hive/01/01-05", "main")
	if err == nil || !strings.Contains(err.Error(), "your working tree") {
		t.Errorf("branch in the main tree: got %v", err)
	}
	r.Git(ctx, "switch", "-q", "main")

	notes := filepath.Join(root, "01", "01-06")
	write(t, filepath.Join(notes, "notes.txt"), "mine\n")
	err = Add(ctx, r, notes, "hive/01/01-06", "main")
	if !errors.Is(err, ErrInTheWay) || !strings.Contains(err.Error(), "no git worktree") {
		t.Errorf("plain folder: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(notes, "notes.txt")); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}

	other := gittest.InitRepo(t, filepath.Join(base, "other"))
	theirs := filepath.Join(root, "01", "01-07")
	if err := Add(ctx, other, theirs, "hive/01/01-07", "main"); err != nil {
		t.Fatal(err)
	}
	err = Add(ctx, r, theirs, "hive/01/01-07", "main")
	if !errors.Is(err, ErrInTheWay) || !strings.Contains(err.Error(), "another repository") {
		t.Errorf("another repository's worktree: got %v", err)
	}
	if worktreeAt(t, other, theirs) == nil {
		t.Error("the other repository's worktree was removed")
	}

	// An empty folder is no obstacle.
	empty := filepath.Join(root, "01", "01-08")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, r, empty, "hive/01/01-08", "main"); err != nil {
		t.Errorf("empty folder: %v", err)
	}
}

// Prune, run at start, says which registrations it forgot.
func TestPruneWorktreesSaysWhatItForgets(t *testing.T) {
	gittest.Isolated(t)
	r := gittest.InitRepo(t, filepath.Join(t.TempDir(), "proj"))
	ctx := context.Background()
	gone := filepath.Join(t.TempDir(), "wt", "01", "integration")
	if err := Add(ctx, r, gone, "hive/01/integration", "main"); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(t.TempDir(), "wt", "01", "01-01")
	if err := Add(ctx, r, kept, "hive/01/01-01", "main"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(gone)
	var n notes
	if err := Prune(n.ctx(), r); err != nil {
		t.Fatal(err)
	}
	if len(n) != 1 {
		t.Fatalf("notes %q, want one", n)
	}
	n.has(t, "forgot worktree "+gone+" of branch hive/01/integration: its folder is gone")
	if worktreeAt(t, r, gone) != nil || worktreeAt(t, r, kept) == nil {
		t.Error("pruned the wrong registrations")
	}
}

// A `git worktree add` killed mid-way (hive killed while it ran) leaves a
// registration git keeps locked "initializing", with the branch set but
// nothing checked out: an agent there would see every file as deleted. No
// agent ever worked in it, so it is removed and made again.
func TestAddWorktreeAfterKilledAdd(t *testing.T) {
	gittest.Isolated(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "proj")
	r := gittest.InitRepo(t, dir)
	write(t, filepath.Join(dir, "main.go"), "package main\n")
	for _, args := range [][]string{{"add", "main.go"}, {"commit", "-q", "-m", "main.go"}} {
		if _, err := run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "worktrees", "01", "01-01")
	if err := Add(ctx, r, path, "hive/01/01-01", "main"); err != nil {
		t.Fatal(err)
	}
	// What the kill left: the checkout and its index missing, the lock kept.
	admin := strings.TrimSpace(mustRun(t, path, "rev-parse", "--absolute-git-dir"))
	for _, p := range []string{filepath.Join(path, "main.go"), filepath.Join(admin, "index")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(admin, "locked"), "initializing")
	if wt := worktreeAt(t, r, path); wt == nil || !wt.Locked || wt.LockReason != "initializing" {
		t.Fatalf("the simulated kill is not what git shows: %+v", wt)
	}

	var n notes
	if err := Add(n.ctx(), r, path, "hive/01/01-01", "main"); err != nil {
		t.Fatalf("add over the killed add: %v", err)
	}
	n.has(t, "removed worktree "+path, "killed")
	if wt := worktreeAt(t, r, path); wt == nil || wt.Locked || wt.Branch != "hive/01/01-01" {
		t.Fatalf("worktree not made again: %+v", wt)
	}
	if status := mustRun(t, path, "status", "--porcelain"); status != "" {
		t.Errorf("the worktree made again is not clean:\n%s", status)
	}

	// Killed before it made the folder: the locked registration is all.
	admin = strings.TrimSpace(mustRun(t, path, "rev-parse", "--absolute-git-dir"))
	write(t, filepath.Join(admin, "locked"), "initializing")
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	n = nil
	if err := Add(n.ctx(), r, path, "hive/01/01-01", "main"); err != nil {
		t.Fatalf("add over the killed add without a folder: %v", err)
	}
	n.has(t, "removed worktree "+path, "killed")
	if status := mustRun(t, path, "status", "--porcelain"); status != "" {
		t.Errorf("the worktree made again is not clean:\n%s", status)
	}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := run(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
