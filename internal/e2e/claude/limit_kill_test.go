package claude_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// TestUsageLimitKillRealClaude: hive, the program, runs a phase of six
// plans (three at once) with the real Claude Code, logged in with a
// subscription's token so that it reads the API's unified rate-limit
// headers. The account's usage limit answers the run's third model
// request, resetting two minutes ahead. While the run waits, hive status
// --json shows the wait; hive SIGKILLed and started again waits for the
// same reset and completes, every task committed once, no retry spent:
// e2etest.KillDuringLimitWait. (Claude Code itself holds a session's
// requests until a reset it was told, by the wall clock, so the wait
// cannot be played on a test clock with it.)
func TestUsageLimitKillRealClaude(t *testing.T) {
	t.Parallel()
	claude := claudeBin(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())

	var requests atomic.Int32
	limit := fa.Rule{Name: "usage limit", Times: 1,
		Match: func(*fa.Conversation) bool { return requests.Add(1) == 3 },
		Reply: func(*fa.Conversation) fa.Reply {
			epoch := strconv.FormatInt(time.Now().Add(2*time.Minute).Unix(), 10)
			return fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.",
				Header: http.Header{"Anthropic-Ratelimit-Unified-Status": {"rejected"}, "Anthropic-Ratelimit-Unified-Reset": {epoch},
					"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"}, "Anthropic-Ratelimit-Unified-5h-Status": {"rejected"},
					"Anthropic-Ratelimit-Unified-5h-Reset": {epoch}}}
		}}
	executor := fa.Rule{Name: "executor",
		Match: func(c *fa.Conversation) bool { return e2etest.PlanToRun.MatchString(e2etest.FirstUserText(c)) },
		Reply: func(c *fa.Conversation) fa.Reply {
			id := e2etest.PlanToRun.FindStringSubmatch(e2etest.FirstUserText(c))[2]
			cmd, report := e2etest.NextStep(t, root, e2etest.Phase01Dir, id, e2etest.SixPlanTasks[id])
			if cmd == "" {
				return fa.Text(report)
			}
			return fa.Bash(cmd)
		}}
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{limit, executor}})
	home := t.TempDir()
	e2etest.WriteHiveConfig(t, root, map[string]any{"cli": "claude", "path": claude})
	env := append(e2etest.ClaudeEnv(srv.URL(), home), "PATH="+filepath.Dir(claude)+":"+os.Getenv("PATH"), "CI=true",
		"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test")
	e2etest.KillDuringSixPlans(t, bin, root, env)
	t.Logf("%d model requests", len(srv.MainRequests()))
}
