package runnertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

// WtPlan is a plan of phase 01-lib with one auto task writing files.
func WtPlan(num string, wave int, deps []string, files []string, mustHaves string) string {
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

// LoadPhase loads the phase in dir of the project at root, which must be valid.
func LoadPhase(t *testing.T, root, dir string) *plan.Phase {
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

// PlanFile is a one-task plan NUM of phase whose task writes src/NUM.go.
func PlanFile(phase, num, deps string) string {
	return fmt.Sprintf("---\nphase: %s\nplan: %s\ntype: execute\ndepends_on: [%s]\nfiles_modified: [src/%s.go]\nautonomous: true\n---\n<objective>Plan %s</objective>\n<tasks>\n<task type=\"auto\"><name>Task 1: x</name><files>src/%s.go</files><action>x</action><done>x</done></task>\n</tasks>\n",
		phase, num, deps, num, num, num)
}

// StaleFiles is a two-plan phase for the tests of what earlier runs left.
func StaleFiles() map[string]string {
	return map[string]string{
		".planning/phases/01-lib/01-01-PLAN.md": WtPlan("01", 1, nil, []string{"src/p01.go"}, ""),
		".planning/phases/01-lib/01-02-PLAN.md": WtPlan("02", 1, nil, []string{"src/p02.go"}, ""),
	}
}

// LeaveWorktrees makes the worktrees a killed worktree run leaves under
// root: the integration worktree and plan 01-01's, with work in both.
func LeaveWorktrees(t *testing.T, repoRoot, root string) {
	t.Helper()
	ctx := context.Background()
	repo, err := gitx.Open(ctx, repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	integ := filepath.Join(root, "01", "integration")
	if err := worktrees.Add(ctx, repo, integ, "hive/01/integration", "HEAD"); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(root, "01", "01-01")
	if err := worktrees.Add(ctx, repo, plan, "hive/01/01-01", "hive/01/integration"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plan, "scratch.txt"), []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// MilestonePlan is a two-task plan of the new milestone's phase 01.
const MilestonePlan = `---
phase: 01-ledger
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/ledger.go, src/ledger_test.go]
autonomous: true
---
<objective>The ledger of the second milestone</objective>
<tasks>
<task type="auto"><name>Task 1: ledger type</name><files>src/ledger.go</files><action>write</action><done>written</done></task>
<task type="auto"><name>Task 2: ledger tests</name><files>src/ledger_test.go</files><action>write</action><done>written</done></task>
</tasks>
`

// archivedMilestone makes a repository whose history holds a finished
// milestone that used the same plan id, 01-01, with hive's own trailers and
// GSD's subject scope, archived under .planning/milestones/ as GSD does; the
// new milestone's phase 01 reuses the id.
// ArchivedMilestone is a repository whose archived milestone used plan id
// 01-01, its tasks committed, and whose new milestone plans 01-01 again.
func ArchivedMilestone(t *testing.T) string {
	t.Helper()
	root := gittest.NewRepo(t, map[string]string{
		".planning/milestones/v1.0-phases/01-setup/01-01-PLAN.md":    PlanFile("01-setup", "01", ""),
		".planning/milestones/v1.0-phases/01-setup/01-01-SUMMARY.md": "---\nphase: 01-setup\nplan: 01\n---\n# Setup\n\n## Self-Check: PASSED\n",
	})
	for n := 1; n <= 2; n++ {
		gittest.Run(t, root, "commit", "-q", "--allow-empty", "-m",
			fmt.Sprintf("feat(01-01): old milestone task %d\n\nHive-Plan: 01-01\nHive-Task: 01-01/%d", n, n))
	}
	gittest.Run(t, root, "commit", "-q", "--allow-empty", "-m", "docs(01-01): complete setup plan\n\nHive-Plan: 01-01\nHive-Summary: 01-01")
	gittest.WriteFile(t, filepath.Join(root, ".planning/phases/01-ledger/01-01-PLAN.md"), MilestonePlan)
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", "docs: plan milestone v2.0 phase 1")
	return root
}
