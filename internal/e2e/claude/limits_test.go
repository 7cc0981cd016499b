package claude_test

import (
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/work"
)

// TestClaudeLimits runs the real Claude Code against API errors and checks
// that its adapter tells the provider's errors apart: a subscription's
// usage limit with its reset (the anthropic-ratelimit-unified-* headers
// the API sends, read by Claude Code when it is logged in with an OAuth
// token), a rate limit, an overload and a refused key.
func TestClaudeLimits(t *testing.T) {
	t.Parallel()
	bin := claudeBin(t)
	reset := time.Now().Add(2 * time.Minute).Truncate(time.Second)
	epoch := strconv.FormatInt(reset.Unix(), 10)
	unified := http.Header{
		"Anthropic-Ratelimit-Unified-Status":               {"rejected"},
		"Anthropic-Ratelimit-Unified-Reset":                {epoch},
		"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"},
		"Anthropic-Ratelimit-Unified-5h-Status":            {"rejected"},
		"Anthropic-Ratelimit-Unified-5h-Reset":             {epoch},
		"Anthropic-Ratelimit-Unified-5h-Utilization":       {"1.0"},
	}
	oauth := []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test"}
	for _, c := range []struct {
		name  string
		reply fa.Reply
		env   []string
		want  agent.Limit
	}{
		{"usage limit", fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.", Header: unified}, oauth,
			agent.Limit{Kind: work.LimitUsage, Status: 429, Reset: reset.UTC(), Window: "five_hour"}},
		{"rate limit", fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit", Header: http.Header{"Retry-After": {"30"}}}, oauth,
			agent.Limit{Kind: work.LimitRate, Status: 429}},
		{"overloaded", fa.Reply{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}, nil,
			agent.Limit{Kind: work.LimitOverload, Status: 529}},
		{"key refused", fa.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"}, nil,
			agent.Limit{Kind: work.LimitAuth, Status: 401}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := fa.New(t, fa.Script{Rules: []fa.Rule{{Name: "error", Match: func(*fa.Conversation) bool { return true }, Reply: fa.Static(c.reply)}}})
			home := t.TempDir()
			launcher := adapter.Claude{Path: bin, Env: append(e2etest.ClaudeEnv(s.URL(), home), c.env...), PermissionMode: "dontAsk"}
			results := e2etest.TurnResults(t, launcher, home)
			if len(results) != 1 || !results[0].IsError || results[0].Limit == nil {
				t.Fatalf("results %+v", results)
			}
			if got := *results[0].Limit; got != c.want {
				t.Errorf("limit %+v, want %+v (the turn said %q)", got, c.want, results[0].Text)
			}
		})
	}
}

// TestUsageLimitRealClaude: the account's usage limit ends the third
// request of the phase's run with the real Claude Code (logged in with a
// subscription's token, so that it reads the API's unified rate-limit
// headers). The run waits for the reset, then completes: every task
// committed once, both checkpoints answered once, no retry spent.
//
// The reset is 5 s ahead on the wall clock, which the run waits for: a
// session of Claude Code started after a limit it met holds its requests
// until the reset it was told, by the wall clock (after the runner's test
// clock was moved two hours on, the next session printed nothing and the
// watchdog ended it), so the wait cannot be played on a test clock here;
// the runner's tests play it (TestUsageLimitWaitsForTheReset).
func TestUsageLimitRealClaude(t *testing.T) {
	t.Parallel()
	var seen atomic.Int32
	o := runPhase(t, false, false, func(root string, s *fa.Script, opts *runner.Options) {
		limit := fa.Rule{Name: "usage-limit", Times: 1,
			Match: func(*fa.Conversation) bool { return seen.Add(1) == 3 },
			Reply: func(*fa.Conversation) fa.Reply {
				epoch := strconv.FormatInt(time.Now().Add(5*time.Second).Unix()+1, 10) // 5 s from the request
				return fa.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "This request would exceed your account's rate limit.",
					Header: http.Header{"Anthropic-Ratelimit-Unified-Status": {"rejected"}, "Anthropic-Ratelimit-Unified-Reset": {epoch},
						"Anthropic-Ratelimit-Unified-Representative-Claim": {"five_hour"}, "Anthropic-Ratelimit-Unified-5h-Status": {"rejected"},
						"Anthropic-Ratelimit-Unified-5h-Reset": {epoch}}}
			}}
		s.Rules = append([]fa.Rule{limit}, s.Rules...)
		opts.Agents.Launcher = adapter.Claude{Env: []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-hive-test"}}
	})
	o.check(t)
	if limited := o.limited(t); limited != 1 || !strings.Contains(o.obs.String(), "waiting for the usage limit's reset") || strings.Contains(o.obs.String(), "retry 1 of") {
		t.Errorf("%d limits journaled; observer:\n%s", limited, o.obs)
	}
}

// TestRateLimitStormsRealClaude: for the first minute of the phase's run,
// half of the API's answers to the real Claude Code are 429 rate limits,
// or 529 overloads (drawn from a fixed seed), beside the same run without
// a storm. Claude Code retries them itself (CLAUDE_CODE_MAX_RETRIES=10,
// its default; the other tests turn its retries off); one run more has its
// retries off (with HIVE_STORMS=all: it spends two minutes in hive's
// backoffs), so that hive's own backoff alone gets past the storm. Each
// run completes with every task committed once and both checkpoints
// answered once, and no retry of hive's is spent. The log reports what
// the storm cost: the errors served, the turns that ended on a limit
// (hive backed off for those) and the wall time added. It asserts no
// time: a loaded machine runs slower.
func TestRateLimitStormsRealClaude(t *testing.T) {
	t.Parallel()
	type figures struct {
		errors, limited int
		took            time.Duration
	}
	var mu sync.Mutex
	got := map[string]figures{}
	storm := func(name string, status int, errType, msg string, retries int) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int32
			o := runPhase(t, false, false, func(root string, s *fa.Script, opts *runner.Options) {
				opts.Agents.Launcher = adapter.Claude{Env: []string{"CLAUDE_CODE_MAX_RETRIES=" + strconv.Itoa(retries)}}
				// As long as hive waits for a silent agent by default: Claude
				// Code's own backoff for 529 can be silent for longer than
				// the other tests' 30 s.
				opts.Agents.Stall = 5 * time.Minute
				if status == 0 {
					return // the run without a storm
				}
				var mu sync.Mutex
				var first time.Time
				rng := rand.New(rand.NewPCG(7, uint64(status)))
				rule := fa.Rule{Name: "storm",
					Match: func(*fa.Conversation) bool {
						mu.Lock()
						defer mu.Unlock()
						if first.IsZero() {
							first = time.Now()
						}
						return time.Since(first) < time.Minute && rng.IntN(2) == 0
					},
					Reply: func(*fa.Conversation) fa.Reply {
						served.Add(1)
						return fa.Reply{Status: status, ErrorType: errType, ErrorMessage: msg}
					}}
				s.Rules = append([]fa.Rule{rule}, s.Rules...)
			})
			o.check(t)
			limited := o.limited(t)
			if strings.Contains(o.obs.String(), "retry 1 of") {
				t.Errorf("a retry was spent:\n%s", o.obs)
			}
			mu.Lock()
			got[name] = figures{errors: int(served.Load()), limited: limited, took: o.spent}
			mu.Unlock()
		})
	}
	// The runs are parallel subtests: their figures are all in once the
	// test's cleanup runs.
	t.Cleanup(func() {
		base := got["none"].took
		for _, name := range []string{"429", "529", "429, Claude Code's retries off"} {
			f, ok := got[name]
			if !ok {
				continue
			}
			t.Logf("%s storm (half the requests of the first minute): %d errors served, %d turns ended on the limit (hive backed off), run %s, %s more than without a storm (%s)",
				name, f.errors, f.limited, f.took.Round(time.Second), (f.took - base).Round(time.Second), base.Round(time.Second))
		}
	})
	const rate = "Number of request tokens has exceeded your per-minute rate limit"
	storm("none", 0, "", "", 10)
	storm("429", 429, "rate_limit_error", rate, 10)
	storm("529", 529, "overloaded_error", "Overloaded", 10)
	if os.Getenv("HIVE_STORMS") == "all" {
		// Two minutes of hive's own backoffs: measured on demand.
		storm("429, Claude Code's retries off", 429, "rate_limit_error", rate, 0)
	}
}

// limited counts the turns of the run that ended on the provider's limit.
func (o outcome) limited(t *testing.T) int {
	t.Helper()
	recs, err := o.mem.Events(o.res.Run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r.Type == string(phase.EvLimited) {
			n++
		}
	}
	return n
}
