//go:build faults

package gitx

import (
	"context"
	"os"
	"path/filepath"
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
	mustGit(t, r, "worktree", "add", "-q", "-b", "side", "--", wt, "HEAD")
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
