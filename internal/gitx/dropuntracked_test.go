package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// writeFile writes body to name (slash-separated) in r's worktree, its
// folders made.
func writeFile(t *testing.T, r *Repo, name, body string) {
	t.Helper()
	p := filepath.Join(r.Root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A git killed in the middle of a merge leaves the branch's files written
// but untracked, and git then refuses the merge: DropUntrackedOf removes
// exactly those (the branch's, byte for byte), and the merge goes through.
// An untracked file of the user's, or one that differs, stays.
func TestDropUntrackedOf(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	write := func(name, body string) { t.Helper(); writeFile(t, r, name, body) }
	git := func(args ...string) string { t.Helper(); return mustGit(t, r, args...) }
	base := git("rev-parse", "--abbrev-ref", "HEAD")
	git("checkout", "-q", "-b", "hive/01/01-06")
	write("internal/csvio/csvio.go", "package csvio\n")
	write("SUMMARY.md", "done\n")
	git("add", "-A")
	git("commit", "-q", "-m", "the plan's work")
	git("checkout", "-q", base)
	// What the killed merge wrote, and two files that are not the branch's.
	write("internal/csvio/csvio.go", "package csvio\n")
	write("SUMMARY.md", "edited since\n")
	write("notes.txt", "mine\n")
	if _, err := r.Merge(ctx, "hive/01/01-06", "merge"); err == nil {
		t.Fatal("git merged over untracked files")
	}
	r.AbortMerge(ctx)
	n, err := r.DropUntrackedOf(ctx, "hive/01/01-06")
	if err != nil || n != 1 {
		t.Fatalf("dropped %d (%v), want the one file the branch holds as it is", n, err)
	}
	if _, err := os.Stat(filepath.Join(r.Root, "internal/csvio/csvio.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the branch's file is still there: %v", err)
	}
	for _, kept := range []string{"SUMMARY.md", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(r.Root, kept)); err != nil {
			t.Errorf("%s went: %v", kept, err)
		}
	}
}
