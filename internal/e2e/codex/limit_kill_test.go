package codex_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
)

// TestUsageLimitKillRealCodex: hive, the program, runs a phase of six
// plans (three at once) with the real codex. The account's usage limit
// answers the run's third model request, resetting two minutes ahead
// (codex says it to the minute). While the run waits, hive status --json
// shows the wait; hive SIGKILLed and started again waits for the same
// reset and completes, every task committed once, no retry spent
// (retries.agent is 0, so a limit that spent one would fail its plan):
// e2etest.KillDuringLimitWait. The runner's tests move a test clock
// instead (TestUsageLimitRealCodex, TestUsageLimitWaitsForTheReset).
func TestUsageLimitKillRealCodex(t *testing.T) {
	t.Parallel()
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())

	var requests atomic.Int32
	srv := fakeopenai.New(t, fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Times: 1,
			Match: func(fakeopenai.Request) bool { return requests.Add(1) == 3 },
			Reply: fakeopenai.Reply{Func: func(fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{Status: 429, Error: "The usage limit has been reached", ErrorType: "usage_limit_reached",
					ErrorFields: map[string]any{"plan_type": "plus", "resets_at": time.Now().Add(2 * time.Minute).Unix(), "resets_in_seconds": 120}}
			}}},
		{Name: "executor", TurnToolOutputs: fakeopenai.Any,
			Match: func(r fakeopenai.Request) bool { return e2etest.PlanToRun.MatchString(r.LastUserText) },
			Reply: fakeopenai.Reply{Func: func(r fakeopenai.Request) fakeopenai.Reply {
				id := e2etest.PlanToRun.FindStringSubmatch(r.LastUserText)[2]
				cmd, report := e2etest.NextStep(t, root, phaseDir, id, e2etest.SixPlanTasks[id])
				if cmd == "" {
					return fakeopenai.Say(report)
				}
				return fakeopenai.Run(cmd)
			}}},
	})
	home := t.TempDir()
	e2etest.WriteHiveConfig(t, root, map[string]any{"cli": "codex", "path": codex, "model": fakeopenai.Model,
		"args": srv.CodexConfig(), "env": map[string]string{"CODEX_HOME": home, "FAKE_API_KEY": "test"}})
	e2etest.KillDuringSixPlans(t, bin, root, append(fakeopenai.CodexEnv(home), "HOME="+home, "CI=true"))

	var seen []string
	for _, r := range srv.ResponsesRequests() {
		plan := "?"
		if m := e2etest.PlanToRun.FindStringSubmatch(r.LastUserText); m != nil {
			plan = m[2]
		}
		seen = append(seen, fmt.Sprintf("%s:%s/%d", r.Rule, plan, r.TurnToolOutputs))
	}
	t.Logf("%d model requests (rule:plan/step): %s", len(seen), strings.Join(seen, " "))
}

// TestUsageLimitKillInARunWithCodex: hive, the program, runs hive run's
// full workflow with the real codex playing every role; the tester's first
// request meets the account's usage limit, resetting two minutes ahead.
// While the run waits, hive status --json shows the wait; hive SIGKILLed
// and resumed (hive run --resume) waits for the same reset, the tester
// runs again, and the run completes with every task committed once:
// e2etest.KillDuringLimitWait.
func TestUsageLimitKillInARunWithCodex(t *testing.T) {
	t.Parallel()
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	isTester := func(r fakeopenai.Request) bool {
		m := e2etest.RoleHeading.FindStringSubmatch(r.LastUserText)
		return m != nil && m[1] == pipeline.RoleTester
	}
	srv := fakeopenai.New(t, fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Match: isTester, Times: 1,
			Reply: fakeopenai.Reply{Func: func(fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{Status: 429, Error: "The usage limit has been reached", ErrorType: "usage_limit_reached",
					ErrorFields: map[string]any{"plan_type": "plus", "resets_at": time.Now().Add(2 * time.Minute).Unix(), "resets_in_seconds": 120}}
			}}},
		{Name: "roles", TurnToolOutputs: fakeopenai.Any, Reply: playRoles(t)},
	})
	home := t.TempDir()
	e2etest.WriteHiveConfig(t, root, map[string]any{"cli": "codex", "path": codex, "model": fakeopenai.Model,
		"args": srv.CodexConfig(), "env": map[string]string{"CODEX_HOME": home, "FAKE_API_KEY": "test"}})
	env := append(fakeopenai.CodexEnv(home), "HOME="+home, "CI=true", "GOFLAGS=")
	var roles []string
	for _, s := range e2etest.Classic.Steps {
		roles = append(roles, s.Role)
	}
	first, second := e2etest.KillDuringLimitWait(t, bin, root, env,
		[]string{"run", e2etest.HealthObjective, "--roles", strings.Join(roles, ","), "--yes"}, []string{"run", "--resume"})
	if !strings.Contains(second, "run 1 complete") {
		t.Errorf("the resumed run did not complete:\nfirst run:\n%s\nresumed:\n%s", first, second)
	}
	e2etest.CheckHealthWork(t, root)
	t.Logf("%d model requests", len(srv.ResponsesRequests()))
}
