package runner

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

// A phase whose plan id an archived milestone used runs every task and
// commits it: old commits naming 01-01 never count as this plan's work, in
// the shared tree or in worktrees, and the report counts only this run's
// commits.
func TestReusedPlanIDRunsEveryTask(t *testing.T) {
	for _, worktrees := range []bool{false, true} {
		t.Run(fmt.Sprintf("worktrees=%v", worktrees), func(t *testing.T) {
			root := runnertest.ArchivedMilestone(t)
			ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
			o := options(t, root, ph, journaltest.NewMemory(), simLauncher(t), &recorder{})
			if worktrees {
				o.Git.Worktrees = true
				o.Git.WorktreeRoot = t.TempDir()
			}
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot.Outcome != phase.OutcomeComplete {
				t.Fatalf("outcome %s", res.Snapshot.Outcome)
			}
			log := gittest.Output(t, root, "log", "--format=%s", "HEAD")
			for _, want := range []string{"ledger type", "ledger tests"} {
				if strings.Count(log, want) != 1 {
					t.Errorf("want one commit for %q; history:\n%s", want, log)
				}
			}
			// Two task commits and the SUMMARY's: never the old milestone's three.
			if got := res.Commits["01-01"]; got != 3 {
				t.Errorf("report counts %d commits for 01-01, want 3 (this run's)", got)
			}
		})
	}
}

// A tracked file inside a folder .gitignore ignores (a checked-in generated
// file) is committed when a plan changes it, and so is a new file the plan
// names there; nothing else that is ignored gets committed.
func TestIgnoredFolderFilesThePlanNamesAreCommitted(t *testing.T) {
	plan := `---
phase: 01-api
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [gen/schema.go, gen/routes.go]
autonomous: true
---
<objective>Regenerate the API</objective>
<tasks>
<task type="auto"><name>Task 1: regenerate the schema</name><files>gen/schema.go, gen/routes.go</files><action>write</action><done>written</done></task>
</tasks>
`
	for _, worktrees := range []bool{false, true} {
		t.Run(fmt.Sprintf("worktrees=%v", worktrees), func(t *testing.T) {
			root := gittest.NewRepo(t, map[string]string{
				".gitignore":                            "gen/\n",
				".planning/phases/01-api/01-01-PLAN.md": plan,
			})
			gittest.WriteFile(t, filepath.Join(root, "gen/schema.go"), "package gen // v1\n")
			gittest.Run(t, root, "add", "-f", "gen/schema.go")
			gittest.Run(t, root, "commit", "-q", "-m", "check in the generated schema")
			ph := runnertest.LoadPhase(t, root, ".planning/phases/01-api")
			o := options(t, root, ph, journaltest.NewMemory(), simLauncher(t), &recorder{})
			if worktrees {
				o.Git.Worktrees = true
				o.Git.WorktreeRoot = t.TempDir()
			}
			o.Human.AutoAnswer = true // a failing plan ends the run instead of waiting for a human
			gittest.WriteFile(t, filepath.Join(root, "gen/cache.bin"), "not the plan's")
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot.Outcome != phase.OutcomeComplete {
				t.Fatalf("outcome %s: %s", res.Snapshot.Outcome, o.Observer)
			}
			if got := gittest.Output(t, root, "show", "HEAD:gen/schema.go"); got == "package gen // v1\n" {
				t.Errorf("the change to the tracked gen/schema.go was not committed")
			}
			files := gittest.Output(t, root, "ls-files", "gen")
			if !strings.Contains(files, "gen/routes.go") {
				t.Errorf("the new gen/routes.go the plan names was not committed: %q", files)
			}
			if strings.Contains(files, "gen/cache.bin") {
				t.Errorf("an ignored file the plan does not name was committed")
			}
		})
	}
}

// A plan branch an earlier milestone left unmerged (same plan id, work that
// is not this run's), with its worktree still registered, is set aside and
// kept; the new plan runs every task from the run's start.
func TestStalePlanBranchIsSetAside(t *testing.T) {
	root := runnertest.ArchivedMilestone(t)
	wtRoot := t.TempDir()
	old := filepath.Join(wtRoot, "01", "01-01")
	gittest.Run(t, root, "worktree", "add", "-q", "-b", "hive/01/01-01", old, "HEAD~2")
	gittest.Run(t, old, "commit", "-q", "--allow-empty", "-m", "feat(01-01): unmerged old work\n\nHive-Plan: 01-01\nHive-Task: 01-01/1")
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
	obs := &recorder{}
	o := options(t, root, ph, journaltest.NewMemory(), simLauncher(t), obs)
	o.Git.Worktrees, o.Git.WorktreeRoot = true, wtRoot
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("outcome %s\n%s", res.Snapshot.Outcome, obs)
	}
	log := gittest.Output(t, root, "log", "--format=%s", "HEAD")
	for _, want := range []string{"ledger type", "ledger tests"} {
		if strings.Count(log, want) != 1 {
			t.Errorf("want one commit for %q; history:\n%s", want, log)
		}
	}
	if !strings.Contains(gittest.Output(t, root, "branch", "--list", "hive/stale/01/*"), "hive/stale/01/01-01-") {
		t.Errorf("the old branch was not kept aside: %s", gittest.Output(t, root, "branch", "-a"))
	}
	if !strings.Contains(obs.String(), "held work from before this run") {
		t.Errorf("no note says the branch was set aside:\n%s", obs)
	}
}

// A plan finished before the run (its SUMMARY passed) is never run again,
// even when later work moved the key files its SUMMARY lists: running it
// again would overwrite the SUMMARY and redo finished work.
func TestFinishedPlanWithMovedKeyFilesIsDone(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{
		".planning/phases/01-ledger/01-01-PLAN.md":    runnertest.MilestonePlan,
		".planning/phases/01-ledger/01-01-SUMMARY.md": "---\nphase: 01-ledger\nplan: 01\nkey-files:\n  created:\n    - src/ledger/old_name.go\n---\n# Ledger\n\n## Self-Check: PASSED\n",
		".planning/phases/01-ledger/01-02-PLAN.md":    runnertest.PlanFile("01-ledger", "02", "01-01"),
	})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
	l := simLauncher(t)
	o := options(t, root, ph, journaltest.NewMemory(), l, &recorder{})
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("run: %v, %s", err, res.Snapshot.Outcome)
	}
	if _, ran := l.dirs["01-01"]; ran {
		t.Errorf("the finished plan 01-01 ran again")
	}
	if got := gittest.Output(t, root, "show", "HEAD:.planning/phases/01-ledger/01-01-SUMMARY.md"); !strings.Contains(got, "old_name.go") {
		t.Errorf("01-01's SUMMARY was rewritten:\n%s", got)
	}
}

// A finished run leaves no folder behind in the cache folder: its worktrees
// and their empty parent folders are gone.
func TestFinishedRunLeavesNoCacheFolder(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	root := gittest.NewRepo(t, map[string]string{".planning/phases/01-ledger/01-01-PLAN.md": runnertest.MilestonePlan})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
	o := options(t, root, ph, journaltest.NewMemory(), simLauncher(t), &recorder{})
	o.Git.Worktrees = true // in the default place: the user's cache folder
	res, err := Run(context.Background(), o)
	if err != nil || res.Snapshot.Outcome != phase.OutcomeComplete {
		t.Fatalf("run: %v, %s", err, res.Snapshot.Outcome)
	}
	var left []string
	filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if path != cache {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("the run left %v in the cache folder", left)
	}
}
