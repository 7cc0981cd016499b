package stalelocks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// A git killed mid-write leaves index.lock, HEAD.lock or a branch's lock:
// those of the phase's worktrees and branches go, with a note each; a lock a
// process still holds open, the user's own index lock, another phase's
// worktree and branch locks stay.
func TestClearStaleLocks(t *testing.T) {
	gittest.Isolated(t)
	ctx := context.Background()
	base := t.TempDir()
	r := gittest.InitRepo(t, filepath.Join(base, "repo"))
	root := filepath.Join(base, "wt", "01")
	mine := filepath.Join(root, "integration")
	other := filepath.Join(base, "wt", "02", "integration")
	for _, wt := range []struct{ dir, branch string }{{mine, "hive/01/integration"}, {other, "hive/02/integration"}} {
		if err := worktrees.Add(ctx, r, wt.dir, wt.branch, "HEAD"); err != nil {
			t.Fatal(err)
		}
	}
	gitDir := func(dir string) string {
		out, err := r.At(dir).Git(ctx, "rev-parse", "--absolute-git-dir")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	common := filepath.Join(r.Root, ".git")
	touch := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{
		touch(filepath.Join(gitDir(mine), "index.lock")),
		touch(filepath.Join(gitDir(mine), "HEAD.lock")),
		touch(filepath.Join(common, "refs", "heads", "hive", "01", "01-02.lock")),
		touch(filepath.Join(common, "refs", "heads", "hive", "phase-01.lock")),
	}
	kept := []string{
		touch(filepath.Join(common, "index.lock")),                                // the user's own tree
		touch(filepath.Join(gitDir(other), "index.lock")),                         // another phase's worktree
		touch(filepath.Join(common, "refs", "heads", "hive", "02", "02-01.lock")), // another phase's branch
		touch(filepath.Join(common, "refs", "heads", "main.lock")),                // the user's branch
	}
	held := touch(filepath.Join(common, "refs", "heads", "hive", "01", "01-03.lock"))
	f, err := os.Open(held) // a live git would hold it open
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kept = append(kept, held)

	notes, err := Clear(ctx, r, root, "hive/01", "hive/phase-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range gone {
		if exists(p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range kept {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	if len(notes) != len(gone) || !strings.Contains(notes[0], "a git lock left by a git process that was killed") {
		t.Errorf("notes = %q, want one per removed lock", notes)
	}
}

// TestClearStaleTreeLocks: the main worktree's lock nobody holds goes, the
// one a process holds open stays.
func TestClearStaleTreeLocks(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	common, err := r.CommonDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	index, head := filepath.Join(common, "index.lock"), filepath.Join(common, "HEAD.lock")
	for _, p := range []string{index, head} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held, err := os.Open(head) // a git still writing HEAD
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	notes, err := ClearTree(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if exists(index) || !exists(head) || len(notes) != 1 {
		t.Fatalf("index.lock there: %v, HEAD.lock there: %v, notes %q; want only the unheld index.lock removed", exists(index), exists(head), notes)
	}
}
