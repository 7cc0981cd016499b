package stream_test

import (
	"testing"

	"github.com/hivectl/hive/internal/sim/stream"
	"github.com/hivectl/hive/internal/testsupport/simtest"
)

// num reads a JSON number of m at the path of keys; -1 when absent.
func num(m map[string]any, keys ...string) int {
	var v any = m
	for _, k := range keys {
		mm, _ := v.(map[string]any)
		if v = mm[k]; v == nil {
			return -1
		}
	}
	f, _ := v.(float64)
	return int(f)
}

// requestUsage is one assistant line's usage: input, cache read, cache
// written.
type requestUsage struct{ in, read, write int }

func (u requestUsage) total() int { return u.in + u.read + u.write }

func usages(lines []map[string]any) []requestUsage {
	var out []requestUsage
	for _, l := range lines {
		if l["type"] == "assistant" {
			out = append(out, requestUsage{num(l, "message", "usage", "input_tokens"),
				max(0, num(l, "message", "usage", "cache_read_input_tokens")), max(0, num(l, "message", "usage", "cache_creation_input_tokens"))})
		}
	}
	return out
}

// Without a curve the usage is the plain estimate, all of it input, and
// the window 200,000, as tests written before the curve expect.
func TestNoCurveKeepsThePlainEstimate(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("p")...)
	p := simtest.Start(t, dir)
	p.Send(simtest.TeamPrompt(rel))
	lines := p.TurnLines()
	for _, l := range lines {
		if l["type"] != "assistant" {
			continue
		}
		u := l["message"].(map[string]any)["usage"].(map[string]any)
		if len(u) != 2 || num(u, "input_tokens") <= 0 || num(u, "output_tokens") != 1 {
			t.Errorf("assistant usage %v, want input_tokens and output_tokens only", u)
		}
	}
	res := lines[len(lines)-1]
	if num(res, "modelUsage", "sim", "contextWindow") != 200000 || num(res, "usage", "cache_read_input_tokens") != -1 {
		t.Errorf("result %v", res)
	}
}

// With a curve, every request reports the session's context: what the
// previous request sent is read from the cache, the rest is input, and it
// grows by the curve's tokens per request and per task.
func TestContextCurveGrowsPerRequest(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("p")...)
	p := simtest.Start(t, dir, stream.EnvContext+"=base=12000,request=3000,task=2000,window=1000000")
	p.Send(simtest.TeamPrompt(rel))
	lines := p.TurnLines()
	us := usages(lines)
	if len(us) < 6 {
		t.Fatalf("only %d requests", len(us))
	}
	if us[0].read != 0 || us[0].total() < 15000 {
		t.Errorf("first request %+v, want the base, the prompt and a request's tokens, none of it cached", us[0])
	}
	sumIn, sumRead := 0, 0
	for i, u := range us {
		sumIn += u.in
		sumRead += u.read
		if i == 0 {
			continue
		}
		prev := us[i-1].total()
		if u.read != prev || u.total() < prev+3000 {
			t.Errorf("request %d: %+v after a context of %d: want it read from the cache and %d more at least", i, u, prev, 3000)
		}
	}
	// Three tasks committed: 2,000 each on top of the requests.
	if grew := us[len(us)-1].total() - us[0].total(); grew < 3000*(len(us)-1)+3*2000 {
		t.Errorf("the context grew by %d over %d requests and 3 tasks", grew, len(us))
	}
	res := lines[len(lines)-1]
	if num(res, "usage", "input_tokens") != sumIn || num(res, "usage", "cache_read_input_tokens") != sumRead ||
		num(res, "modelUsage", "sim", "cacheReadInputTokens") != sumRead || num(res, "modelUsage", "sim", "contextWindow") != 1000000 {
		t.Errorf("result usage %v modelUsage %v; want the sums %d input, %d read and the window 1000000", res["usage"], res["modelUsage"], sumIn, sumRead)
	}

	// The session's second turn: modelUsage sums the session, usage the turn.
	p.Send("How did it go?")
	lines = p.TurnLines()
	us2 := usages(lines)
	res = lines[len(lines)-1]
	if len(us2) != 1 || us2[0].read != us[len(us)-1].total() || num(res, "usage", "cache_read_input_tokens") != us2[0].read ||
		num(res, "modelUsage", "sim", "cacheReadInputTokens") != sumRead+us2[0].read {
		t.Errorf("second turn: requests %+v, result %v", us2, res)
	}
}

// Near the window the sim compacts as Claude Code does: two status lines,
// compact_boundary, the synthetic user message, and a small context after.
func TestContextCurveCompacts(t *testing.T) {
	dir := simtest.NewRepo(t)
	rel := simtest.WritePlan(t, dir, "01-01", simtest.ThreeTasks("p")...)
	p := simtest.Start(t, dir, stream.EnvContext+"=base=80000,request=2000,task=2000,window=100000")
	p.Send(simtest.TeamPrompt(rel))
	lines := p.TurnLines()
	var seq []string
	var boundary map[string]any
	lastTotal, afterTotal, afterRead := 0, -1, -1
	for _, l := range lines {
		switch {
		case l["type"] == "system" && l["subtype"] == "status" && l["status"] == "compacting":
			seq = append(seq, "compacting")
		case l["type"] == "system" && l["subtype"] == "status":
			seq = append(seq, "compact_result:"+l["compact_result"].(string))
		case l["type"] == "system" && l["subtype"] == "compact_boundary":
			seq = append(seq, "compact_boundary")
			if boundary == nil {
				boundary = l["compact_metadata"].(map[string]any)
			}
		case l["type"] == "user" && l["isSynthetic"] == true:
			seq = append(seq, "continued")
		case l["type"] == "assistant":
			u := usages([]map[string]any{l})[0]
			if len(seq) > 0 && afterTotal < 0 {
				afterTotal, afterRead = u.total(), u.read
			}
			if afterTotal < 0 {
				lastTotal = u.total()
			}
		}
	}
	if len(seq) < 4 || seq[0] != "compacting" || seq[1] != "compact_result:success" || seq[2] != "compact_boundary" || seq[3] != "continued" {
		t.Fatalf("compaction lines %q", seq)
	}
	pre, post := num(boundary, "pre_tokens"), num(boundary, "post_tokens")
	if boundary["trigger"] != "auto" || pre < 92000 || pre > 100000 || pre < lastTotal || post != 10000 {
		t.Errorf("compact_metadata %v (the last request before it reported %d), want trigger auto, pre_tokens in [92000, 100000], post_tokens 10000", boundary, lastTotal)
	}
	if afterRead != 0 || afterTotal != post+2000 {
		t.Errorf("the request after the compaction reported %d (read %d), want %d and nothing from the cache", afterTotal, afterRead, post+2000)
	}
	if res := lines[len(lines)-1]; res["is_error"] != false || simtest.Find([]string{res["result"].(string)}, "PLAN COMPLETE") == "" {
		t.Errorf("the plan did not complete: %v", res)
	}
}
