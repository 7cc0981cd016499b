package worktrees

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// A repository folder in hive's cache whose repository was deleted is an
// orphan; one whose repository exists, or that holds something not in
// hive's layout, is not.
func TestOrphans(t *testing.T) {
	gittest.Isolated(t)
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "worktrees")
	live := gittest.InitRepo(t, filepath.Join(t.TempDir(), "live"))
	gone := gittest.InitRepo(t, filepath.Join(t.TempDir(), "gone"))
	for _, r := range []*gitx.Repo{live, gone} {
		if err := Add(ctx, r, filepath.Join(root, filepath.Base(r.Root)+"-abc", "01", "01-01"), "hive/01/01-01", "HEAD"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(gone.Root); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "empty-def"), 0o755)
	os.MkdirAll(filepath.Join(root, "mine-123"), 0o755)
	os.WriteFile(filepath.Join(root, "mine-123", "notes.txt"), []byte("not hive's"), 0o644)
	got, err := Orphans(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "empty-def"), filepath.Join(root, "gone-abc")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Orphans = %v, want %v", got, want)
	}
}
