package screenshots

import (
	"os"
	"path/filepath"
	"testing"
)

// copyRegular copies regular files of the worktree only: never through a
// link that leads out of it, never a folder.
func TestCopyRegularStaysInTheWorktree(t *testing.T) {
	t.Parallel()
	wt, outside, dst := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(wt, ".hive", "screenshots"), 0o755)
	os.WriteFile(filepath.Join(wt, ".hive", "screenshots", "ok.png"), []byte("\x89PNG"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.png"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(wt, ".hive", "screenshots", "link.png"))
	os.Symlink(outside, filepath.Join(wt, ".hive", "screenshots", "dir"))
	os.Mkdir(filepath.Join(wt, ".hive", "screenshots", "folder.png"), 0o755)
	if err := copyRegular(wt, ".hive/screenshots/ok.png", filepath.Join(dst, "a.png")); err != nil {
		t.Fatalf("a screenshot of the worktree: %v", err)
	}
	for _, rel := range []string{".hive/screenshots/link.png", ".hive/screenshots/dir/secret.png", ".hive/screenshots/folder.png", ".hive/screenshots/none.png"} {
		if err := copyRegular(wt, rel, filepath.Join(dst, "b.png")); err == nil {
			t.Errorf("%s was copied", rel)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "b.png")); err == nil {
		t.Error("a refused file was written")
	}
}
