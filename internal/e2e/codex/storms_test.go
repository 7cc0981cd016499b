package codex_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
)

// rateLimitStorms: for the first minute of a run of
// e2etest.SixPlans by hive, the program, with the real codex, half of the
// API's answers are 429 rate limits, or 500 overloads (drawn from a fixed
// seed), beside the same run without a storm. codex retries them itself
// (4 retries, its default). Each run completes with every task committed
// once, and no retry of hive's is spent (retries.agent is 0). The log
// reports what the storm cost: the errors served, the turns that ended on
// a limit (hive backed off for those) and the wall time added. It asserts
// no time: a loaded machine runs slower.
func rateLimitStorms(t *testing.T) {
	codex := fakeopenai.CodexBinary(t)
	bin := e2etest.HiveBin(t)
	type figures struct {
		errors, limited int
		took            time.Duration
	}
	var mu sync.Mutex
	got := map[string]figures{}
	storm := func(name string, reply fakeopenai.Reply) e2etest.Subtest {
		return e2etest.Subtest{Name: name, Run: func(t *testing.T) {
			root := e2etest.Repo(t, e2etest.SixPlans())
			var served atomic.Int32
			var first time.Time
			rng := rand.New(rand.NewPCG(7, uint64(reply.Status)))
			srv := fakeopenai.New(t, fakeopenai.Script{
				// The rules' Match runs under the server's lock.
				{Name: "storm", TurnToolOutputs: fakeopenai.Any,
					Match: func(fakeopenai.Request) bool {
						if first.IsZero() {
							first = time.Now()
						}
						return reply.Status != 0 && time.Since(first) < time.Minute && rng.IntN(2) == 0
					},
					Reply: fakeopenai.Reply{Func: func(fakeopenai.Request) fakeopenai.Reply {
						served.Add(1)
						return reply
					}}},
				sixPlanExecutor(t, root),
			})
			env := hiveWithCodex(t, codex, root, srv, 4)
			start := time.Now()
			code, out := e2etest.HiveCmd(t, bin, root, env, "execute-phase", "1", "--yes", "--no-tui")
			took := time.Since(start)
			if code != 0 {
				t.Fatalf("hive execute-phase: exit %d\n%s", code, out)
			}
			e2etest.CheckSixPlans(t, root, out)
			_, log := e2etest.HiveCmd(t, bin, root, env, "log")
			mu.Lock()
			got[name] = figures{errors: int(served.Load()), limited: strings.Count(log, "limit ended the turn"), took: took}
			mu.Unlock()
		}}
	}
	e2etest.Together(t,
		storm("none", fakeopenai.Reply{}),
		storm("429", fakeopenai.Reply{Status: 429, Error: "Rate limit reached for tokens per min (TPM)", ErrorType: "tokens"}),
		storm("500", fakeopenai.Reply{Status: 500, Error: "overloaded", ErrorType: "server_error"}))
	base := got["none"].took
	for _, name := range []string{"429", "500"} {
		if f, ok := got[name]; ok {
			t.Logf("%s storm (half the requests of the first minute): %d errors served, %d turns ended on the limit (hive backed off), run %s, %s more than without a storm (%s)",
				name, f.errors, f.limited, f.took.Round(time.Second), (f.took - base).Round(time.Second), base.Round(time.Second))
		}
	}
}
