package claude_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// TestWaitingWithClaude runs the tests of hive, the program, with the
// real Claude Code that wait on the wall clock for a usage limit's reset,
// together in one of go test's parallel slots.
func TestWaitingWithClaude(t *testing.T) {
	t.Parallel()
	e2etest.Together(t,
		e2etest.Subtest{Name: "usage limit, phase killed", Run: usageLimitKillPhase},
		e2etest.Subtest{Name: "usage limit, run killed", Run: usageLimitKillRun})
}

// usageLimitKillPhase: hive, the program, runs a phase of six
// plans (three at once) with the real Claude Code, logged in with a
// subscription's token so that it reads the API's unified rate-limit
// headers. The account's usage limit answers the run's third model
// request, resetting two minutes ahead. While the run waits, hive status
// --json shows the wait; hive SIGKILLed and started again waits for the
// same reset and completes, every task committed once, no retry spent:
// e2etest.KillDuringLimitWait. (Claude Code itself holds a session's
// requests until a reset it was told, by the wall clock, so the wait
// cannot be played on a test clock with it.)
func usageLimitKillPhase(t *testing.T) {
	claude := claudeBin(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.SixPlans())

	var requests atomic.Int32
	limit := fa.Rule{Name: "usage limit", Times: 1, Match: func(*fa.Conversation) bool { return requests.Add(1) == 3 }, Reply: usageLimitIn2m}
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
	e2etest.KillDuringSixPlans(t, bin, root, subscriberEnv(t, root, claude, srv))
	t.Logf("%d model requests", len(srv.MainRequests()))
}

// usageLimitKillRun: hive, the program, runs hive run's
// full workflow with the real Claude Code (logged in with a subscription)
// playing every role; the tester's first request meets the account's
// usage limit, resetting two minutes ahead. While the run waits, hive
// status --json shows the wait; hive SIGKILLed and resumed (hive run
// --resume) waits for the same reset, the tester runs again, and the run
// completes with every task committed once: e2etest.KillDuringLimitWait.
func usageLimitKillRun(t *testing.T) {
	claude := claudeBin(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	limit := fa.Rule{Name: "usage limit", Times: 1, Match: isTester, Reply: usageLimitIn2m}
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{limit, e2etest.HealthRoles(root, t.Errorf)}})
	first, second := e2etest.KillDuringLimitWait(t, bin, root, subscriberEnv(t, root, claude, srv), e2etest.ClassicRun(), []string{"run", "--resume"})
	if !strings.Contains(second, "run 1 complete") {
		t.Errorf("the resumed run did not complete:\nfirst run:\n%s\nresumed:\n%s", first, second)
	}
	e2etest.CheckHealthWork(t, root)
	t.Logf("%d model requests", len(srv.MainRequests()))
}

// usageLimitIn2m is the API's answer at the account's usage limit (the
// unified rate-limit headers Claude Code reads when logged in with a
// subscription), resetting two minutes after the request.
func usageLimitIn2m(*fa.Conversation) fa.Reply {
	epoch := strconv.FormatInt(time.Now().Add(2*time.Minute).Unix(), 10)
	return fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.",
		Header: http.Header{"Anthropic-Ratelimit-Unified-Status": {"rejected"}, "Anthropic-Ratelimit-Unified-Reset": {epoch},
			"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"}, "Anthropic-Ratelimit-Unified-5h-Status": {"rejected"},
			"Anthropic-Ratelimit-Unified-5h-Reset": {epoch}}}
}

// subscriberEnv configures root's hive to run the real Claude Code, logged
// in with a subscription's token, against srv, and returns hive's
// environment.
func subscriberEnv(t *testing.T, root, claude string, srv *fa.Server) []string {
	e2etest.WriteHiveConfig(t, root, map[string]any{"cli": "claude", "path": claude})
	return append(e2etest.ClaudeEnv(srv.URL(), t.TempDir()), "PATH="+filepath.Dir(claude)+":"+os.Getenv("PATH"), "CI=true", "GOFLAGS=",
		"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test")
}
