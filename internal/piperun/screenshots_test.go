package piperun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/pipeline"
)

// The browser validator's screenshots, saved in the run's worktree (which
// goes when the run ends), are kept in the repository's .hive/runs/N/.
func TestScreenshotsKept(t *testing.T) {
	t.Parallel()
	repo := service(t)
	wf := pipeline.Workflow{Name: "look", Steps: []pipeline.Step{{Role: pipeline.RoleBrowserValidator}}}
	n := &notes{}
	res, _, _ := recorded(t, repo, wf, func(o *Options) { o.Observer = n })
	dir := filepath.Join(repo.Root, ScreenshotsDir(res.Run.ID))
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("screenshots kept: %v, %v", entries, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("%s is no PNG (%v)", entries[0].Name(), err)
	}
	if !strings.HasPrefix(entries[0].Name(), "browser-validator-1-") {
		t.Errorf("kept as %s; want it named after the job and attempt", entries[0].Name())
	}
	if said := strings.Join(n.lines, "\n"); !strings.Contains(said, "kept 1 screenshot(s) in .hive/runs/1/screenshots") {
		t.Errorf("the run did not say where the screenshots are:\n%s", said)
	}
}

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
