package prompt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// A continuation prompt lists every answer already given in the plan, and
// names the commit the run started from.
func TestContinuationPromptCarriesAnswers(t *testing.T) {
	root := newRepo(t, map[string]string{".planning/phases/01-ledger/01-01-PLAN.md": milestonePlan})
	ph := loadPhase(t, root, ".planning/phases/01-ledger")
	out, err := ExecutorPrompt(executorPrompt, ph, ph.Plans[0], true, "0123456789abcdef", &continuationData{
		Reason:  "the agent crashed",
		Answers: []priorAnswer{{Task: 1, Type: "decision", Answer: "sqlite"}, {Task: 2, Type: "human-verify", Answer: "approved"}},
	}, Briefing{Warnings: []string{"In 2 earlier runs (last: run 4) after the implementer's work the tests failed: TestLedger (files: ledger.go)"},
		Context: "### ledger.go\n\npackage ledger"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<previous_answers>", "- Task 1 (decision): sqlite\n", "- Task 2 (human-verify): approved\n",
		"This run started at commit 0123456789ab.", "git log 0123456789ab..HEAD",
		"<context_from_hive>\n### ledger.go\n\npackage ledger\n</context_from_hive>",
		"<warnings_from_earlier_runs>\nWhat went wrong in this project's implementations more than once. Check each before you report PLAN COMPLETE.\n- In 2 earlier runs (last: run 4) after the implementer's work the tests failed: TestLedger (files: ledger.go)\n</warnings_from_earlier_runs>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
}

// A TDD task's RED, GREEN and REFACTOR commits are one task's work: the
// continuation lists the task once, with its latest commit.
func TestTDDCommitsAreOneTask(t *testing.T) {
	root := archivedMilestone(t)
	since := strings.TrimSpace(git(t, root, "rev-parse", "HEAD"))
	for _, subject := range []string{"test(01-01): failing ledger test", "feat(01-01): ledger passes", "refactor(01-01): tidy ledger"} {
		gitRun(t, root, "commit", "-q", "--allow-empty", "-m", subject+"\n\nHive-Plan: 01-01\nHive-Task: 01-01/1")
	}
	ph := loadPhase(t, root, ".planning/phases/01-ledger")
	repo, err := gitx.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	pr := &Builder{Work: headWork{repo: repo, scope: map[string]string{"01-01": since}}}
	got := pr.completedTasks(context.Background(), ph.Plans[0])
	head := strings.TrimSpace(git(t, root, "rev-parse", "--short=7", "HEAD"))
	if len(got) != 1 || got[0].Number != 1 || got[0].Commit != head || got[0].Name != "Task 1: ledger type" {
		t.Fatalf("completed tasks = %+v, want task 1 once, at %s", got, head)
	}
}

// headWork is the workspace of a run in the shared tree whose plan
// commits are looked up in git each time.
type headWork struct {
	repo  *gitx.Repo
	scope map[string]string
}

func (w headWork) Since(id string) string { return w.scope[id] }

func (w headWork) PlanCommits(ctx context.Context, id string) ([]gitx.Commit, error) {
	return w.repo.PlanCommits(ctx, id, w.scope[id], "HEAD")
}

func (w headWork) PlanRepo(string) *gitx.Repo { return w.repo }

func (w headWork) Branches(string) (string, string) { return "", "" }

// milestonePlan is a two-task plan of the new milestone's phase 01.
const milestonePlan = `---
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
func archivedMilestone(t *testing.T) string {
	t.Helper()
	root := newRepo(t, map[string]string{
		".planning/milestones/v1.0-phases/01-setup/01-01-PLAN.md":    planFile("01-setup", "01", ""),
		".planning/milestones/v1.0-phases/01-setup/01-01-SUMMARY.md": "---\nphase: 01-setup\nplan: 01\n---\n# Setup\n\n## Self-Check: PASSED\n",
	})
	for n := 1; n <= 2; n++ {
		gitRun(t, root, "commit", "-q", "--allow-empty", "-m",
			fmt.Sprintf("feat(01-01): old milestone task %d\n\nHive-Plan: 01-01\nHive-Task: 01-01/%d", n, n))
	}
	gitRun(t, root, "commit", "-q", "--allow-empty", "-m", "docs(01-01): complete setup plan\n\nHive-Plan: 01-01\nHive-Summary: 01-01")
	writeFile(t, filepath.Join(root, ".planning/phases/01-ledger/01-01-PLAN.md"), milestonePlan)
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "docs: plan milestone v2.0 phase 1")
	return root
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

func planFile(phase, num, deps string) string {
	return fmt.Sprintf("---\nphase: %s\nplan: %s\ntype: execute\ndepends_on: [%s]\nfiles_modified: [src/%s.go]\nautonomous: true\n---\n<objective>Plan %s</objective>\n<tasks>\n<task type=\"auto\"><name>Task 1: x</name><files>src/%s.go</files><action>x</action><done>x</done></task>\n</tasks>\n",
		phase, num, deps, num, num, num)
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

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
