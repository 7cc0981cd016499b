package claude_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/pricing"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// The budget end to end: hive (the built binary) runs the three plans of
// Phase03Auth with the real Claude Code, whose model reports costly turns.
// The run must stop at its ceiling with the budget checkpoint, spending at
// most the turns in flight past it; `hive costs` must equal what the fake
// server billed, priced by hive's table; after `hive answer budget raise`
// the resumed run finishes and the spend before the stop is still counted.

// costlyOutput is the output every scripted reply reports: at Claude Code's
// default model (claude-opus-5-5, $20 per million output tokens) a turn
// costs about $0.40.
const costlyOutput = 20_000

// billedUSD prices the requests the server answered (those of reported,
// when it is not nil) at hive's built-in prices for the model each named.
func billedUSD(t *testing.T, srv *fa.Server, reported map[string]bool) (usd float64, total fa.Usage, left int) {
	t.Helper()
	for _, r := range srv.MainRequests() {
		if reported != nil && !reported[r.MessageID] {
			left++
			continue
		}
		usd += requestUSD(t, r)
		total = total.Add(r.Usage)
	}
	return usd, total, left
}

// requestUSD is what the server billed for r, at hive's built-in prices.
func requestUSD(t *testing.T, r fa.Request) float64 {
	t.Helper()
	u := r.Usage
	cost, ok := pricing.Defaults().Cost(r.Conv.Model, pricing.Usage{Input: int64(u.InputTokens), Output: int64(u.OutputTokens),
		CacheWrite: int64(u.CacheCreationInputTokens), CacheRead: int64(u.CacheReadInputTokens)})
	if !ok {
		t.Fatalf("no price for model %q", r.Conv.Model)
	}
	return cost
}

// largestTurns is, for each Claude Code session the server saw, what its
// costliest turn was billed: a turn is the requests from a user prompt
// (its first request has no assistant message after the prompt) to the
// next.
func largestTurns(t *testing.T, srv *fa.Server) map[string]float64 {
	t.Helper()
	largest, turn := map[string]float64{}, map[string]float64{}
	for _, r := range srv.MainRequests() {
		session := r.Header.Get("X-Claude-Code-Session-Id")
		if _, k := r.Conv.LastPrompt(); k == 0 {
			turn[session] = 0
		}
		turn[session] += requestUSD(t, r)
		largest[session] = max(largest[session], turn[session])
	}
	return largest
}

// reportedMessages lists the API messages Claude Code's output named (its
// agents' logs keep every stream-json line): a request that an interrupt
// cut before its reply began is billed by the API, but no CLI reports it.
func reportedMessages(t *testing.T, root string) map[string]bool {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(root, ".hive", "logs", "*.log"))
	ids := map[string]bool{}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgIDRe.FindAllSubmatch(b, -1) {
			ids[string(m[1])] = true
		}
	}
	return ids
}

var msgIDRe = regexp.MustCompile(`"id":"(msg_fake_\d+)"`)

// costsTotal is `hive costs --json`'s total.
func costsTotal(t *testing.T, bin, root string, env []string) (usd float64, tokens [4]int64) {
	t.Helper()
	code, out := e2etest.HiveCmd(t, bin, root, env, "costs", "--json")
	var v struct {
		Total struct {
			Input      int64   `json:"input_tokens"`
			Output     int64   `json:"output_tokens"`
			CacheRead  int64   `json:"cache_read_tokens"`
			CacheWrite int64   `json:"cache_write_tokens"`
			CostUSD    float64 `json:"cost_usd"`
		} `json:"total"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("hive costs --json: exit %d\n%s", code, out)
	}
	return v.Total.CostUSD, [4]int64{v.Total.Input, v.Total.CacheWrite, v.Total.CacheRead, v.Total.Output}
}

func TestBudgetCeilingRealClaude(t *testing.T) {
	t.Parallel()
	claude := claudeBin(t)
	bin := e2etest.HiveBin(t)
	files := maps.Clone(e2etest.Phase03Auth)
	files[".planning/config.json"] = `{"workflow": {"verifier": false}}` + "\n"
	root := e2etest.Repo(t, files)
	ex := executor(t, root)
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{{Name: "costly executor", Match: ex.Match,
		Reply: func(c *fa.Conversation) fa.Reply {
			r := ex.Reply(c)
			r.OutputTokens = costlyOutput
			return r
		}}}})
	home := t.TempDir()
	env := append(e2etest.ClaudeEnv(srv.URL(), home), "PATH="+filepath.Dir(claude)+":"+os.Getenv("PATH"),
		"CI=true", "GOCACHE="+os.Getenv("GOCACHE"), "GOFLAGS=")

	// The first run stops at the ceiling.
	const ceiling = 1.50
	code, out := e2etest.HiveCmd(t, bin, root, env, "execute-phase", "03", "--yes", "--no-tui",
		"--budget-usd", fmt.Sprint(ceiling), "--checkpoint-wait", "0s")
	if code != 5 || !strings.Contains(out, "budget reached") || !strings.Contains(out, "hive answer budget") {
		t.Fatalf("the first run: exit %d, want 5 (stopped for a human at the budget)\n%s", code, out)
	}
	sessions := map[string]bool{}
	for _, r := range srv.MainRequests() {
		sessions[r.Header.Get("X-Claude-Code-Session-Id")] = true
	}
	if len(sessions) == 0 || len(sessions) > 3 {
		t.Errorf("%d Claude Code sessions in the first run, want 1 to 3 (one per plan at most; none started after the stop)", len(sessions))
	}
	checkCosts := func(when string) float64 {
		t.Helper()
		reported := reportedMessages(t, root)
		billed, usage, cut := billedUSD(t, srv, reported)
		all, _, _ := billedUSD(t, srv, nil)
		hiveUSD, tokens := costsTotal(t, bin, root, env)
		t.Logf("%s: the server billed $%.4f in %d requests (%d cut short by an interrupt, before the CLI saw a reply); the CLIs reported %+v = $%.4f; hive costs: $%.4f",
			when, all, len(srv.MainRequests()), cut, usage, billed, hiveUSD)
		if math.Abs(hiveUSD-billed) > 1e-6 {
			t.Errorf("%s: hive costs total $%.6f, the reported requests were billed $%.6f", when, hiveUSD, billed)
		}
		if want := [4]int64{int64(usage.InputTokens), int64(usage.CacheCreationInputTokens), int64(usage.CacheReadInputTokens), int64(usage.OutputTokens)}; tokens != want {
			t.Errorf("%s: hive costs tokens (in, cache write, cache read, out) %v, billed %v", when, tokens, want)
		}
		if cut > len(sessions) {
			t.Errorf("%s: %d requests the CLIs never reported, more than one per interrupted agent", when, cut)
		}
		return hiveUSD
	}
	before := checkCosts("stopped at the budget")
	// What the ceiling promises: at most the ceiling plus what the turns in
	// flight when hive started its last turn cost beyond the largest turn
	// seen then; at most one turn per agent, so at most the ceiling and
	// each session's costliest turn as the server billed it.
	all, _, _ := billedUSD(t, srv, nil)
	limit := ceiling
	for session, usd := range largestTurns(t, srv) {
		t.Logf("session %s: its costliest turn was billed $%.4f", session, usd)
		limit += usd
	}
	t.Logf("billed at the stop: $%.4f of the ceiling $%.2f (at most $%.4f: the ceiling and one turn per agent)", all, ceiling, limit)
	if all > limit {
		t.Errorf("the server billed $%.4f by the stop, more than the ceiling $%.2f and one turn per agent ($%.4f)", all, ceiling, limit)
	}

	// Raised, the run resumes, finishes, and counts what it spent before.
	code, out = e2etest.HiveCmd(t, bin, root, env, "answer", "budget", "raise", "100")
	if code != 0 {
		t.Fatalf("hive answer budget raise 100: exit %d\n%s", code, out)
	}
	code, out = e2etest.HiveCmd(t, bin, root, env, "execute-phase", "03", "--yes", "--no-tui", "--checkpoint-wait", "0s")
	if code != 0 {
		t.Fatalf("the resumed run: exit %d, want 0\n%s", code, out)
	}
	for _, id := range []string{"03-01", "03-02", "03-03"} {
		if err := e2etest.Summary(root, phaseDir, id); err != nil {
			t.Errorf("plan %s: %v", id, err)
		}
	}
	if after := checkCosts("finished"); after <= before {
		t.Errorf("the spend before the stop was not kept: $%.4f after, $%.4f before", after, before)
	}
}
