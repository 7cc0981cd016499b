package prompt

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// A continuation prompt lists every answer already given in the plan, and
// names the commit the run started from.
func TestContinuationPromptCarriesAnswers(t *testing.T) {
	root := gittest.NewRepo(t, map[string]string{".planning/phases/01-ledger/01-01-PLAN.md": runnertest.MilestonePlan})
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
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
	root := runnertest.ArchivedMilestone(t)
	since := strings.TrimSpace(gittest.Output(t, root, "rev-parse", "HEAD"))
	for _, subject := range []string{"test(01-01): failing ledger test", "feat(01-01): ledger passes", "refactor(01-01): tidy ledger"} {
		gittest.Run(t, root, "commit", "-q", "--allow-empty", "-m", subject+"\n\nHive-Plan: 01-01\nHive-Task: 01-01/1")
	}
	ph := runnertest.LoadPhase(t, root, ".planning/phases/01-ledger")
	repo, err := gitx.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	pr := &Builder{Work: headWork{repo: repo, scope: map[string]string{"01-01": since}}}
	got := pr.completedTasks(context.Background(), ph.Plans[0])
	head := strings.TrimSpace(gittest.Output(t, root, "rev-parse", "--short=7", "HEAD"))
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
