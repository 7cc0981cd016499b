//go:build faults

package worktrees

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// A worktree's base is resolved by the worktree add itself: a base that is
// no commit is still told as such, and a branch made from a branch never
// tracks it, whatever branch.autoSetupMerge says.
func TestAddWorktreeBase(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	if _, err := r.Git(ctx, "config", "branch.autoSetupMerge", "always"); err != nil {
		t.Fatal(err)
	}
	err := Add(ctx, r, filepath.Join(t.TempDir(), "bad"), "hive/01/bad", "no-such-base")
	if err == nil || !strings.Contains(err.Error(), `base "no-such-base" is not a commit`) {
		t.Errorf("Add from a base that is no commit: %v", err)
	}
	if r.BranchExists(ctx, "hive/01/bad") {
		t.Error("a branch was made from a base that is no commit")
	}
	commands := 0
	gitx.AfterCommand = func() { commands++ }
	defer func() { gitx.AfterCommand = nil }()
	if err := Add(ctx, r, filepath.Join(t.TempDir(), "good"), "hive/01/good", "main"); err != nil {
		t.Fatal(err)
	}
	if commands != 3 { // check-ref-format (a new name), worktree list, worktree add
		t.Errorf("a new worktree ran %d git commands, want 3 (check-ref-format, worktree list, worktree add)", commands)
	}
	if out, err := r.Git(ctx, "config", "--get", "branch.hive/01/good.merge"); err == nil {
		t.Errorf("the plan branch tracks %s", out)
	}
}

// Removing a plan's worktree and branch needs no listing of the worktrees
// when the folder and its registration point at each other; one whose
// folder is gone is still pruned.
func TestRemoveWorktreeWithoutListing(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	root := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := Add(ctx, r, filepath.Join(root, name), "hive/01/"+name, "main"); err != nil {
			t.Fatal(err)
		}
	}
	commands := 0
	gitx.AfterCommand = func() { commands++ }
	defer func() { gitx.AfterCommand = nil }()
	if err := Remove(ctx, r, filepath.Join(root, "a"), "hive/01/a"); err != nil {
		t.Fatal(err)
	}
	if commands != 2 {
		t.Errorf("removing a worktree and its branch ran %d git commands, want 2 (worktree remove, branch -D)", commands)
	}
	if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, r, filepath.Join(root, "b"), "hive/01/b"); err != nil {
		t.Fatal(err)
	}
	wts, err := List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 1 || r.BranchExists(ctx, "hive/01/a") || r.BranchExists(ctx, "hive/01/b") {
		t.Errorf("after removing both: worktrees %+v, branches a %v, b %v", wts, r.BranchExists(ctx, "hive/01/a"), r.BranchExists(ctx, "hive/01/b"))
	}
}
