package codex_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
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
	e2etest.KillDuringLimitWait(t, bin, root, append(fakeopenai.CodexEnv(home), "HOME="+home, "CI=true"))

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
