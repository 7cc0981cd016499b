//go:build faults

package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What never changes is asked of git once: a branch name's form, and that
// a tree has an identity to commit as (each was a process per plan step).
func TestRepeatedChecksRunGitOnce(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	commands := 0
	AfterCommand = func() { commands++ }
	defer func() { AfterCommand = nil }()
	count := func(what string, fn func() error) int {
		t.Helper()
		commands = 0
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return commands
	}
	check := func() error { return CheckBranchName(ctx, "hive/01/once-only") }
	if n := count("first check", check); n != 1 {
		t.Errorf("the first check of a name ran %d git commands, want 1", n)
	}
	if n := count("second check", check); n != 0 {
		t.Errorf("a name already accepted ran %d git commands, want 0", n)
	}
	if err := CheckBranchName(ctx, "hive/01/bad..name"); err == nil {
		t.Error("a malformed name was accepted")
	}
	commit := func(name string) func() error {
		return func() error {
			if err := os.WriteFile(filepath.Join(r.Root, name), []byte(name), 0o644); err != nil {
				return err
			}
			return r.CommitAll(ctx, "add "+name, name)
		}
	}
	first := count("first commit", commit("one"))
	if second := count("second commit", commit("two")); second != first-2 {
		t.Errorf("the second commit ran %d git commands, the first %d: want two fewer (git var, twice)", second, first)
	}
}

// A merge in progress is seen in the main tree and in a linked worktree
// from the MERGE_HEAD file, without a git process (a plan's merge asks
// three times).
func TestMergeInProgressRunsNoGit(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, "side", "HEAD"); err != nil {
		t.Fatal(err)
	}
	for _, tree := range []*Repo{r, r.At(wt)} {
		if err := os.WriteFile(filepath.Join(tree.Root, "f"), []byte(tree.Root), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := tree.CommitAll(ctx, "f", "f"); err != nil {
			t.Fatal(err)
		}
	}
	commands := 0
	AfterCommand = func() { commands++ }
	defer func() { AfterCommand = nil }()
	for _, tree := range []*Repo{r, r.At(wt)} {
		if tree.MergeInProgress(ctx) {
			t.Errorf("%s: a merge in progress before any merge", tree.Root)
		}
	}
	if commands != 0 {
		t.Errorf("looking for a merge in progress ran %d git commands, want 0", commands)
	}
	if _, err := r.Merge(ctx, "side", "merge side"); err == nil {
		t.Fatal("the merge of two versions of f did not conflict")
	}
	if !r.MergeInProgress(ctx) || r.At(wt).MergeInProgress(ctx) {
		t.Errorf("merge in progress: main tree %v, worktree %v; want true, false", r.MergeInProgress(ctx), r.At(wt).MergeInProgress(ctx))
	}
	if err := r.AbortMerge(ctx); err != nil || r.MergeInProgress(ctx) {
		t.Errorf("AbortMerge = %v, merge in progress after it: %v", err, r.MergeInProgress(ctx))
	}
	if _, err := r.At(wt).Merge(ctx, "main", "merge main"); err == nil {
		t.Fatal("the merge of two versions of f did not conflict")
	}
	if r.MergeInProgress(ctx) || !r.At(wt).MergeInProgress(ctx) {
		t.Errorf("merge in progress: main tree %v, worktree %v; want false, true", r.MergeInProgress(ctx), r.At(wt).MergeInProgress(ctx))
	}
}

// Whether a branch exists is read from git's ref store, loose or packed,
// without a git process (a plan's steps ask five times), and agrees with
// git throughout.
func TestBranchExistsRunsNoGit(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	if _, err := r.CommonDir(ctx); err != nil { // asked once per repository
		t.Fatal(err)
	}
	commands := 0
	AfterCommand = func() { commands++ }
	defer func() { AfterCommand = nil }()
	git := func(args ...string) {
		t.Helper()
		if _, err := r.Git(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want map[string]bool) {
		t.Helper()
		commands = 0
		for name, exists := range want {
			if got := r.BranchExists(ctx, name); got != exists {
				t.Errorf("%s: BranchExists(%q) = %v, want %v", when, name, got, exists)
			}
		}
		if commands != 0 {
			t.Errorf("%s: %d git commands to look for branches, want 0", when, commands)
		}
	}
	git("branch", "hive/01/01-01")
	git("branch", "hive/01/integration")
	check("loose", map[string]bool{"main": true, "hive/01/01-01": true, "hive/01/integration": true,
		"hive/01/01-02": false, "hive/01": false, "hive/01/01-01/x": false, "hive": false})
	git("pack-refs", "--all")
	check("packed", map[string]bool{"main": true, "hive/01/01-01": true, "hive/01/01-02": false, "hive/01": false})
	git("branch", "hive/01/01-02")
	git("branch", "-D", "hive/01/01-01")
	check("packed, one deleted, one new", map[string]bool{"hive/01/01-01": false, "hive/01/01-02": true, "hive/01/integration": true})
}

// A worktree's base is resolved by the worktree add itself: a base that is
// no commit is still told as such, and a branch made from a branch never
// tracks it, whatever branch.autoSetupMerge says.
func TestAddWorktreeBase(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	if _, err := r.Git(ctx, "config", "branch.autoSetupMerge", "always"); err != nil {
		t.Fatal(err)
	}
	err := r.AddWorktree(ctx, filepath.Join(t.TempDir(), "bad"), "hive/01/bad", "no-such-base")
	if err == nil || !strings.Contains(err.Error(), `base "no-such-base" is not a commit`) {
		t.Errorf("AddWorktree from a base that is no commit: %v", err)
	}
	if r.BranchExists(ctx, "hive/01/bad") {
		t.Error("a branch was made from a base that is no commit")
	}
	commands := 0
	AfterCommand = func() { commands++ }
	defer func() { AfterCommand = nil }()
	if err := r.AddWorktree(ctx, filepath.Join(t.TempDir(), "good"), "hive/01/good", "main"); err != nil {
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
	r := newTestRepo(t)
	root := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := r.AddWorktree(ctx, filepath.Join(root, name), "hive/01/"+name, "main"); err != nil {
			t.Fatal(err)
		}
	}
	commands := 0
	AfterCommand = func() { commands++ }
	defer func() { AfterCommand = nil }()
	if err := r.RemoveWorktree(ctx, filepath.Join(root, "a"), "hive/01/a"); err != nil {
		t.Fatal(err)
	}
	if commands != 2 {
		t.Errorf("removing a worktree and its branch ran %d git commands, want 2 (worktree remove, branch -D)", commands)
	}
	if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveWorktree(ctx, filepath.Join(root, "b"), "hive/01/b"); err != nil {
		t.Fatal(err)
	}
	wts, err := r.Worktrees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 1 || r.BranchExists(ctx, "hive/01/a") || r.BranchExists(ctx, "hive/01/b") {
		t.Errorf("after removing both: worktrees %+v, branches a %v, b %v", wts, r.BranchExists(ctx, "hive/01/a"), r.BranchExists(ctx, "hive/01/b"))
	}
}
