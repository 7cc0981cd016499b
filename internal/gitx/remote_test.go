package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file handed through a remote on a branch of its own reaches a clone,
// and the repository's branches and tree stay as they were.
func TestFileCommitReachesAClone(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	dir := t.TempDir()
	r := initRepo(t, filepath.Join(dir, "a"))
	bare := filepath.Join(dir, "remote.git")
	if _, err := run(ctx, dir, "init", "-q", "--bare", bare); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head(ctx)
	data := []byte(`{"01-01": {"Warnings": ["mind the cache"]}}` + "\n")
	commit, err := r.FileCommit(ctx, "briefs.json", data, "hive: the plans' briefings")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PushBranch(ctx, bare, commit, "hive/run-1/briefs", nil); err != nil {
		t.Fatal(err)
	}
	if now, _ := r.Head(ctx); now != head {
		t.Fatalf("HEAD moved from %s to %s", head, now)
	}
	if dirty, err := r.Dirty(ctx); err != nil || len(dirty) > 0 {
		t.Fatalf("the tree changed: %v %v", dirty, err)
	}
	b := initRepo(t, filepath.Join(dir, "b"))
	if err := b.FetchBranches(ctx, bare, "hive/*"); err != nil {
		t.Fatal(err)
	}
	got, err := b.FileAt(ctx, RemoteRef("hive/run-1/briefs"), "briefs.json")
	if err != nil || string(got) != string(data) {
		t.Fatalf("the clone reads %q (%v), want %q", got, err, data)
	}
	if _, err := r.FileCommit(ctx, "a/b.json", data, "x"); err == nil {
		t.Fatal("a file name with a folder was taken")
	}
}

// TestCommitOnlyLeavesNothingStaged: a commit of hive's files that fails
// leaves them unstaged, as the user's index was.
func TestCommitOnlyLeavesNothingStaged(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	r := initRepo(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(r.Root, "STATE.md"), []byte("# State\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// --no-verify does not skip prepare-commit-msg: it stands for any
	// failure of the commit itself.
	hook := filepath.Join(r.Root, ".git", "hooks", "prepare-commit-msg")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.CommitOnly(ctx, "docs: state", "STATE.md"); err == nil {
		t.Fatal("the commit did not fail")
	}
	if st, _ := r.Git(ctx, "status", "--porcelain"); strings.TrimSpace(st) != "?? STATE.md" {
		t.Fatalf("after a failed commit the tree is:\n%s", st)
	}
	os.Remove(hook)
	if err := r.CommitOnly(ctx, "docs: state", "STATE.md"); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.Git(ctx, "status", "--porcelain"); st != "" {
		t.Fatalf("after the commit the tree is:\n%s", st)
	}
}
