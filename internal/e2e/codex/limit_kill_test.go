package codex_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
	"github.com/hivectl/hive/internal/workflows"
)

// TestWaitingWithCodex runs the tests of hive, the program, with the real
// codex that wait on the wall clock (usage limits' resets, hive's backoffs
// at rate limits), together in one of go test's parallel slots.
func TestWaitingWithCodex(t *testing.T) {
	t.Parallel()
	e2etest.Together(t,
		e2etest.Subtest{Name: "usage limit, phase killed", Run: usageLimitKillPhase},
		e2etest.Subtest{Name: "usage limit, run killed", Run: usageLimitKillRun},
		e2etest.Subtest{Name: "storms", Run: rateLimitStorms})
}

// usageLimitKillPhase: hive, the program, runs a phase of six
// plans (three at once) with the real codex. The account's usage limit
// answers the run's third model request, resetting two minutes ahead
// (codex says it to the minute). While the run waits, hive status --json
// shows the wait; hive SIGKILLed and started again waits for the same
// reset and completes, every task committed once, no retry spent
// (retries.agent is 0, so a limit that spent one would fail its plan):
// e2etest.KillDuringLimitWait. The runner's tests move a test clock
// instead (TestUsageLimitRealCodex, TestUsageLimitWaitsForTheReset).
func usageLimitKillPhase(t *testing.T) {
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())

	srv := fakeopenai.New(t, limitAtTheThirdRequest(t, root))
	e2etest.KillDuringSixPlans(t, bin, root, hiveWithCodex(t, codex, root, srv, 0))

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

// usageLimitKillRun: hive, the program, runs hive run's
// full workflow with the real codex playing every role; the tester's first
// request meets the account's usage limit, resetting two minutes ahead.
// While the run waits, hive status --json shows the wait; hive SIGKILLed
// and resumed (hive run --resume) waits for the same reset, the tester
// runs again, and the run completes with every task committed once:
// e2etest.KillDuringLimitWait.
func usageLimitKillRun(t *testing.T) {
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	srv := fakeopenai.New(t, fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Match: isTester, Times: 1, Reply: usageLimit(2 * time.Minute)},
		{Name: "roles", TurnToolOutputs: fakeopenai.Any, Reply: playRoles(t)},
	})
	first, second := e2etest.KillDuringLimitWait(t, bin, root, hiveWithCodex(t, codex, root, srv, 0), e2etest.ClassicRun(), []string{"run", "--resume"})
	if !strings.Contains(second, "run 1 complete") {
		t.Errorf("the resumed run did not complete:\nfirst run:\n%s\nresumed:\n%s", first, second)
	}
	e2etest.CheckHealthWork(t, root)
	t.Logf("%d model requests", len(srv.ResponsesRequests()))
}

// limitAtTheThirdRequest is the script of the six plans in root whose
// third request (of any plan) meets the account's usage limit, resetting
// two minutes ahead.
func limitAtTheThirdRequest(t *testing.T, root string) fakeopenai.Script {
	var requests atomic.Int32
	return fakeopenai.Script{
		{Name: "usage limit", TurnToolOutputs: fakeopenai.Any, Times: 1,
			Match: func(fakeopenai.Request) bool { return requests.Add(1) == 3 }, Reply: usageLimit(2 * time.Minute)},
		sixPlanExecutor(t, root),
	}
}

// usageLimit is the API's answer at the account's usage limit, resetting
// ahead of the request it answers.
func usageLimit(ahead time.Duration) fakeopenai.Reply {
	return fakeopenai.Reply{Func: func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Status: 429, Error: "The usage limit has been reached", ErrorType: "usage_limit_reached",
			ErrorFields: map[string]any{"plan_type": "plus", "resets_at": time.Now().Add(ahead).Unix(), "resets_in_seconds": int(ahead.Seconds())}}
	}}
}

// isTester says whether r is a request of hive run's tester.
func isTester(r fakeopenai.Request) bool {
	m := e2etest.RoleHeading.FindStringSubmatch(r.LastUserText)
	return m != nil && m[1] == workflows.RoleTester
}

// sixPlanExecutor plays the executor of each plan of e2etest.SixPlans in
// root, from what the repository holds (e2etest.NextStep).
func sixPlanExecutor(t *testing.T, root string) fakeopenai.Rule {
	return fakeopenai.Rule{Name: "executor", TurnToolOutputs: fakeopenai.Any,
		Match: func(r fakeopenai.Request) bool { return e2etest.PlanToRun.MatchString(r.LastUserText) },
		Reply: fakeopenai.Reply{Func: func(r fakeopenai.Request) fakeopenai.Reply {
			id := e2etest.PlanToRun.FindStringSubmatch(r.LastUserText)[2]
			cmd, report := e2etest.NextStep(t, root, phaseDir, id, e2etest.SixPlanTasks[id])
			if cmd == "" {
				return fakeopenai.Say(report)
			}
			return fakeopenai.Run(cmd)
		}}}
}

// hiveWithCodex configures root's hive to run the real codex (its own
// retries of a failed request: retries) against srv, and returns hive's
// environment.
func hiveWithCodex(t *testing.T, codex, root string, srv *fakeopenai.Server, retries int) []string {
	home := t.TempDir()
	e2etest.WriteHiveConfig(t, root, map[string]any{"cli": "codex", "path": codex, "model": fakeopenai.Model,
		"args": srv.CodexConfigRetrying(retries), "env": map[string]string{"CODEX_HOME": home, "FAKE_API_KEY": "test"}})
	return append(fakeopenai.CodexEnv(home), "HOME="+home, "CI=true", "GOFLAGS=")
}
