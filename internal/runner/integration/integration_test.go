package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// A merge never deletes or overwrites another plan's SUMMARY: a plan branch
// that removes 01-01's SUMMARY and rewrites 01-02's is merged with both
// kept as they were, and with its own SUMMARY added.
func TestMergeKeepsOtherSummaries(t *testing.T) {
	dir := ".planning/phases/01-lib/"
	root := newRepo(t, map[string]string{
		dir + "01-01-PLAN.md":    wtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		dir + "01-02-PLAN.md":    wtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
		dir + "01-03-PLAN.md":    wtPlan("03", 1, nil, []string{"src/p03.go"}, ""),
		dir + "01-01-SUMMARY.md": "---\nphase: 01-lib\nplan: 01\n---\n# one\n\n## Self-Check: PASSED\n",
		dir + "01-02-SUMMARY.md": "---\nphase: 01-lib\nplan: 02\n---\n# two\n\n## Self-Check: PASSED\n",
	})
	ctx := context.Background()
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	ph := loadPhase(t, root, ".planning/phases/01-lib")
	g := Git{Worktrees: true, WorktreeRoot: filepath.Join(t.TempDir(), "worktrees")}
	in, err := Open(ctx, repo, ph, g, time.Now, func(plan, text string) { t.Logf("note %s %s", plan, text) })
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	p3 := ph.Plans[2]
	pd, err := in.PreparePlan(ctx, p3, Setup{}, "")
	if err != nil {
		t.Fatal(err)
	}
	git(t, pd, "rm", "-q", dir+"01-01-SUMMARY.md")
	os.WriteFile(filepath.Join(pd, dir+"01-02-SUMMARY.md"), []byte("clobbered\n"), 0o644)
	os.WriteFile(filepath.Join(pd, dir+"01-03-SUMMARY.md"), []byte("---\nphase: 01-lib\nplan: 03\n---\n# three\n\n## Self-Check: PASSED\n"), 0o644)
	git(t, pd, "add", "-A")
	git(t, pd, "commit", "-q", "-m", "docs(01-03): complete plan")

	res := in.Merge(ctx, p3, engine.Snapshot{})
	if !res.OK {
		t.Fatalf("merge: %+v", res)
	}
	if !strings.Contains(res.Reason, "01-01-SUMMARY.md") || !strings.Contains(res.Reason, "01-02-SUMMARY.md") {
		t.Errorf("the merge does not say it kept the SUMMARY files: %q", res.Reason)
	}
	for file, want := range map[string]string{"01-01-SUMMARY.md": "# one", "01-02-SUMMARY.md": "# two", "01-03-SUMMARY.md": "# three"} {
		got := git(t, in.Dir(), "show", "HEAD:"+dir+file)
		if !strings.Contains(got, want) {
			t.Errorf("%s after the merge:\n%s", file, got)
		}
	}
	if n := strings.Count(git(t, in.Dir(), "log", "--merges", "--format=%s"), "merge plan 01-03"); n != 1 {
		t.Errorf("%d merge commits of 01-03", n)
	}
	// Merging again is a no-op, not a second merge.
	if res := in.Merge(ctx, p3, engine.Snapshot{}); !res.OK || res.Reason != "already merged" {
		t.Errorf("second merge: %+v", res)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// newRepo makes a git repository with the given files and one commit.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@hive.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@hive.invalid")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func loadPhase(t *testing.T, root, dir string) *plan.Phase {
	t.Helper()
	ph, err := load.Phase(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds := validate.Phase(ph); plan.HasErrors(ds) {
		t.Fatalf("invalid fixture: %v", ds)
	}
	return ph
}

// wtPlan is a plan of phase 01-lib with one auto task writing files.
func wtPlan(num string, wave int, deps []string, files []string, mustHaves string) string {
	return fmt.Sprintf(`---
phase: 01-lib
plan: %s
type: execute
wave: %d
depends_on: [%s]
files_modified: [%s]
autonomous: true
%s---
<objective>Plan %s of the library</objective>
<tasks>
<task type="auto"><name>Task 1: write %s</name><files>%s</files><action>write</action><done>written</done></task>
</tasks>
`, num, wave, strings.Join(deps, ", "), strings.Join(files, ", "), mustHaves, num, strings.Join(files, ", "), strings.Join(files, ", "))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
