package runworker

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/piperun/phaserun"
	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// The names a run's work goes by: two clones of one repository share the
// queue of the runs with a git remote and keep a folder queue and a
// workflow of their own; a run is told from one of the same number in a
// new journal; what a phase's branches are named is what a worker
// accepts, and a valid branch name, whatever the job is called, while a
// namespace hive does not make is refused.
func TestRunNames(t *testing.T) {
	roots := "a1b2c3 d4e5f6"
	if AnywhereQueue("hive", roots) != AnywhereQueue("hive", roots) || AnywhereQueue("hive", roots) == AnywhereQueue("hive", "ffffff") {
		t.Error("the repository's queue is not named by its root commits alone")
	}
	if FolderQueue("hive", "/a/clone") == FolderQueue("hive", "/b/clone") || WorkflowID("/a/clone") == WorkflowID("/b/clone") {
		t.Error("two folders share a folder queue or a workflow id")
	}
	if PlansQueue("hive") == FolderQueue("hive", "/a/clone") || PlansQueue("hive") == AnywhereQueue("hive", roots) {
		t.Error("the plans' queue is another's")
	}
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	old, renewed := journal.Run{ID: 1, Started: start}, journal.Run{ID: 1, Started: start.Add(time.Hour)}
	if RunName(old) == RunName(renewed) || RunName(old) != RunName(journal.Run{ID: 1, Started: start.In(time.FixedZone("CET", 3600))}) {
		t.Errorf("run names %q, %q: want runs of one number in two journals told apart, and one run named alike in any zone", RunName(old), RunName(renewed))
	}
	ctx := context.Background()
	for _, job := range []string{"implementers", "implementers fix/2", "ünïcode job", "a..b"} {
		ns := phaseNamespace(phaserun.Work{Run: old, Job: job, Attempt: 2})
		if !runNamespace.MatchString(ns) {
			t.Errorf("job %q: namespace %q is refused by the workers", job, ns)
		}
		if err := gitx.CheckBranchName(ctx, "hive/"+ns+"/integration"); err != nil {
			t.Errorf("job %q: %v", job, err)
		}
	}
	if err := gitx.CheckBranchName(ctx, RemoteRunBranch(RunSpace(old))); err != nil {
		t.Errorf("the run's branch: %v", err)
	}
	for _, ns := range []string{"run-../../x", "other", "run-a b", "run-a/b"} {
		if runNamespace.MatchString(ns) {
			t.Errorf("namespace %q is taken, though hive never makes it", ns)
		}
	}
}
