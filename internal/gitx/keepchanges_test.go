package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// KeepChanges keeps a worktree's edits, staged and not, and its new files
// at a ref, leaves the worktree at its last commit with ignored files
// untouched, and does the same again when cut off and called again; a
// clean worktree keeps nothing.
func TestKeepChanges(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	write := func(name, body string) { t.Helper(); writeFile(t, r, name, body) }
	git := func(args ...string) string { t.Helper(); return mustGit(t, r, args...) }
	write("kept.txt", "one\n")
	write(".gitignore", "/build/\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	head := git("rev-parse", "HEAD")

	if kept, err := r.KeepChanges(ctx, "refs/hive/left/t", "left"); err != nil || kept {
		t.Fatalf("a clean worktree: kept %v, %v; want nothing kept", kept, err)
	}
	write("kept.txt", "two\n")
	write("staged.txt", "staged\n")
	git("add", "staged.txt")
	write("new/dir/test_x.go", "package x\n")
	write("build/out", "ignored\n")
	for i := range 2 { // the second call: as if the first was cut off before its reset
		if i == 1 {
			git("reset", "-q", "--soft", "HEAD")
			write("kept.txt", "two\n")
			write("staged.txt", "staged\n")
			write("new/dir/test_x.go", "package x\n")
		}
		kept, err := r.KeepChanges(ctx, "refs/hive/left/t", "left by an interrupted session")
		if err != nil || !kept {
			t.Fatalf("call %d: kept %v, %v; want the changes kept", i+1, kept, err)
		}
	}
	if got := git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved: %s, want %s", got, head)
	}
	if left, _ := r.Dirty(ctx); len(left) != 0 {
		t.Errorf("the worktree holds %v after, want it at its last commit", left)
	}
	if data, _ := os.ReadFile(filepath.Join(r.Root, "kept.txt")); string(data) != "one\n" {
		t.Errorf("kept.txt = %q, want the committed one", data)
	}
	if _, err := os.Stat(filepath.Join(r.Root, "build", "out")); err != nil {
		t.Errorf("an ignored file went: %v", err)
	}
	if got := git("rev-parse", "refs/hive/left/t^"); got != head {
		t.Errorf("the kept commit's parent is %s, want HEAD %s", got, head)
	}
	names := git("diff", "--name-only", "HEAD", "refs/hive/left/t")
	if names != "kept.txt\nnew/dir/test_x.go\nstaged.txt" {
		t.Errorf("kept %q, want the three changed files", names)
	}
	if branches := git("branch", "--list"); strings.Count(branches, "\n") != 0 {
		t.Errorf("branches %q: the kept changes must be on no branch", branches)
	}
}
