package piperun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/piperun/screenshots"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// The browser validator's screenshots, saved in the run's worktree (which
// goes when the run ends), are kept in the repository's .hive/runs/N/.
func TestScreenshotsKept(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	wf := workflows.Workflow{Name: "look", Steps: []workflows.Step{{Role: workflows.RoleBrowserValidator}}}
	n := &notes{}
	res, _, _ := recorded(t, repo, wf, func(o *Options) { o.Observer = n })
	dir := filepath.Join(repo.Root, screenshots.Dir(res.Run.ID))
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
