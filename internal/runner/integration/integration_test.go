package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// A merge never deletes or overwrites another plan's SUMMARY: a plan branch
// that removes 01-01's SUMMARY and rewrites 01-02's is merged with both
// kept as they were, and with its own SUMMARY added.
func TestMergeKeepsOtherSummaries(t *testing.T) {
	dir := ".planning/phases/01-lib/"
	root := gittest.NewRepo(t, map[string]string{
		dir + "01-01-PLAN.md":    runnertest.WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		dir + "01-02-PLAN.md":    runnertest.WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
		dir + "01-03-PLAN.md":    runnertest.WtPlan("03", 1, nil, []string{"src/p03.go"}, ""),
		dir + "01-01-SUMMARY.md": "---\nphase: 01-lib\nplan: 01\n---\n# one\n\n## Self-Check: PASSED\n",
		dir + "01-02-SUMMARY.md": "---\nphase: 01-lib\nplan: 02\n---\n# two\n\n## Self-Check: PASSED\n",
	})
	ctx := context.Background()
	repo, err := gitx.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-lib")
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
	gittest.Output(t, pd, "rm", "-q", dir+"01-01-SUMMARY.md")
	os.WriteFile(filepath.Join(pd, dir+"01-02-SUMMARY.md"), []byte("clobbered\n"), 0o644)
	os.WriteFile(filepath.Join(pd, dir+"01-03-SUMMARY.md"), []byte("---\nphase: 01-lib\nplan: 03\n---\n# three\n\n## Self-Check: PASSED\n"), 0o644)
	gittest.Output(t, pd, "add", "-A")
	gittest.Output(t, pd, "commit", "-q", "-m", "docs(01-03): complete plan")

	res := in.Merge(ctx, p3, phase.Snapshot{})
	if !res.OK {
		t.Fatalf("merge: %+v", res)
	}
	if !strings.Contains(res.Reason, "01-01-SUMMARY.md") || !strings.Contains(res.Reason, "01-02-SUMMARY.md") {
		t.Errorf("the merge does not say it kept the SUMMARY files: %q", res.Reason)
	}
	for file, want := range map[string]string{"01-01-SUMMARY.md": "# one", "01-02-SUMMARY.md": "# two", "01-03-SUMMARY.md": "# three"} {
		got := gittest.Output(t, in.Dir(), "show", "HEAD:"+dir+file)
		if !strings.Contains(got, want) {
			t.Errorf("%s after the merge:\n%s", file, got)
		}
	}
	if n := strings.Count(gittest.Output(t, in.Dir(), "log", "--merges", "--format=%s"), "merge plan 01-03"); n != 1 {
		t.Errorf("%d merge commits of 01-03", n)
	}
	// Merging again is a no-op, not a second merge.
	if res := in.Merge(ctx, p3, phase.Snapshot{}); !res.OK || res.Reason != "already merged" {
		t.Errorf("second merge: %+v", res)
	}
}
