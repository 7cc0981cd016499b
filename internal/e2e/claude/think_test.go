package claude_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/piperun"
	"github.com/hivectl/hive/internal/piperun/planner"
	"github.com/hivectl/hive/internal/roleplan"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/workflows"
)

// TestPlannerAndEvaluatorsWithClaude: the real Claude Code plays the
// planner, the implementer and the three evaluators against the fake model
// server. "fix the typo in README.md" is planned as the implementer alone
// (hive's build after it, which is no role); the implementer fixes the
// typo; the evaluators judge its work in parallel, one of them with a
// warning; the run completes with the fix on main, and the evaluation with
// its three verdicts is in the journal.
func TestPlannerAndEvaluatorsWithClaude(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	root := e2etest.Repo(t, map[string]string{
		"go.mod":    "module example.com/svc\n\ngo 1.22\n",
		"main.go":   "package main\n\nfunc main() {}\n",
		"README.md": "# svc\n\nIt will recieve requests.\n",
	})
	report := func(fields string) fa.Reply {
		return fa.Text("<!--HIVE_REPORT\n{\"status\": \"complete\", \"summary\": \"done\", \"confidence\": 0.9" + fields + "}\nHIVE_REPORT-->")
	}
	rule := fa.Rule{
		Name:  "planner, implementer, evaluators",
		Match: func(c *fa.Conversation) bool { return e2etest.RoleHeading.MatchString(firstUserText(c)) },
		Reply: func(c *fa.Conversation) fa.Reply {
			first := firstUserText(c)
			_, k := c.LastPrompt()
			switch role := e2etest.RoleHeading.FindStringSubmatch(first)[1]; role {
			case workflows.RolePlanner:
				return report(`, "roles": ["implementer"], "reasoning": "a typo is one word in one file"`)
			case workflows.RoleEvaluator:
				if strings.Contains(first, "Coherence:") {
					return report(`, "verdict": "warn", "notes": ["the README's other spellings were not checked"]`)
				}
				return report(`, "verdict": "ok", "notes": []`)
			case workflows.RoleImplementer:
				steps := []fa.Reply{fa.Write(inCwd(c, root, "README.md"), "# svc\n\nIt will receive requests.\n"),
					fa.Bash(commitPaths("docs: fix the typo in README.md", "README.md")), report(`, "files": ["README.md"]`)}
				return steps[min(k, len(steps)-1)]
			default:
				t.Errorf("the %s was started: the planner chose the implementer alone", role)
				return report("")
			}
		},
	}
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{rule}})
	launcher := adapter.Claude{Path: bin, Env: e2etest.ClaudeEnv(srv.URL(), t.TempDir()), Model: "claude-sonnet-5-5"}
	cheap := adapter.Claude{Path: bin, Env: e2etest.ClaudeEnv(srv.URL(), t.TempDir())}
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RunTimeout)
	defer cancel()
	repo := e2etest.OpenRepo(ctx, t, root)
	const objective = "fix the typo in README.md"
	wf, planning := planner.Plan(ctx, planner.Options{Repo: repo, Launcher: cheap, Model: "claude-haiku-5-5", Objective: objective})
	if planning.By != "planner" || strings.Join(wf.StepNames(), ",") != "implementer,build>implementer" {
		t.Fatalf("planned by %s: %v (%s)", planning.By, wf.StepNames(), planning.Reasoning)
	}
	j := journaltest.NewMemory()
	res, err := piperun.Run(ctx, piperun.Options{
		Repo: repo, Journal: j, Objective: objective, Workflow: wf, Planning: &planning,
		Launcher: launcher, Evaluator: cheap, EvaluatorModel: "claude-haiku-5-5", Routing: roleplan.Routing{Evaluate: true},
		AutoAnswer: true, Stall: 30 * time.Second, WorktreeRoot: filepath.Join(t.TempDir(), "worktrees"),
	})
	if err != nil || res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("%v %s %s", err, res.Snapshot.Outcome, res.Snapshot.Reason)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "README.md")); !strings.Contains(string(data), "receive") {
		t.Errorf("main's README.md: %s", data)
	}
	var e *roleplan.Evaluation
	recs, _ := j.Events(res.Run.ID, 1)
	for _, rec := range recs {
		if rec.Type == string(roleplan.EvEvaluated) {
			var ev roleplan.Event
			if err := json.Unmarshal(rec.Payload, &ev); err != nil {
				t.Fatal(err)
			}
			e = ev.Evaluation
		}
	}
	if e == nil || len(e.Verdicts) != 3 {
		t.Fatalf("evaluation journaled: %+v", e)
	}
	got := fmt.Sprintf("%s %s %s", e.Verdicts[0].Verdict, e.Verdicts[1].Verdict, e.Verdicts[2].Verdict)
	if got != "ok warn ok" || e.Verdicts[1].Notes[0] != "the README's other spellings were not checked" || e.Verdicts[0].Tokens == 0 {
		t.Errorf("verdicts %s: %+v", got, e.Verdicts)
	}
	models := map[string]bool{}
	for _, r := range srv.MainRequests() {
		if m := e2etest.RoleHeading.FindStringSubmatch(firstUserText(r.Conv)); m != nil && (m[1] == workflows.RoleEvaluator || m[1] == workflows.RolePlanner) {
			models[r.Conv.Model] = true
		}
	}
	if len(models) != 1 || !models["claude-haiku-5-5"] {
		t.Errorf("the planner's and evaluators' requests named %v, want the cheap model only", models)
	}
}
