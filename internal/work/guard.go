package work

import (
	"fmt"
	"strings"
)

// LoopGuard tunes the loop guard: an agent that makes the same tool call
// (same tool, same input) again and again in a row is told at WarnRepeat
// calls and interrupted at StopRepeat (the same test run between edits is
// work, not a loop: only calls in a row count); one that goes round a cycle of two or three calls (A-B-A-B-
// A-B) is told when the cycle has come three times and interrupted if it
// comes twice more; one that makes more than MaxCalls calls in a session
// is told, and interrupted at a tenth more. An interrupted agent's plan
// goes to the human as a failure (retry, skip, abort), since a machine
// that loops once loops again.
type LoopGuard struct {
	WarnRepeat int `json:"warn_repeat,omitempty"` // default 3
	StopRepeat int `json:"stop_repeat,omitempty"` // default 5
	MaxCalls   int `json:"max_calls,omitempty"`   // default 400
}

// withDefaults fills the zero fields.
func (g LoopGuard) withDefaults() LoopGuard {
	if g.WarnRepeat <= 0 {
		g.WarnRepeat = 3
	}
	if g.StopRepeat <= g.WarnRepeat {
		g.StopRepeat = max(5, g.WarnRepeat+2)
	}
	if g.MaxCalls <= 0 {
		g.MaxCalls = 400
	}
	return g
}

// cycleRuns is how many times a cycle of calls must come round in a row to
// be a loop.
const cycleRuns = 3

// CallGuard is what the loop guard saw of one agent session's calls: the
// decision itself, pure, shared by the engine's agents and hive run's
// roles.
type CallGuard struct {
	Calls  int      `json:"calls,omitempty"`
	Run    int      `json:"run,omitempty"`    // how many times in a row the last call was made
	Recent []string `json:"recent,omitempty"` // the last calls, oldest first
	// Cycle is the cycle the agent was told about ("" none) and CycleAt the
	// call count then.
	Cycle   string `json:"cycle,omitempty"`
	CycleAt int    `json:"cycle_at,omitempty"`
	Told    bool   `json:"told,omitempty"` // about the call ceiling
}

// Call counts one tool call (its tool and fingerprint) and says what
// follows: tell, a message for the agent; stop, why it is interrupted;
// both "" while it works. giveUp is how the agent's protocol reports what
// blocks it ("report PLAN FAILED with what blocks you").
func (g *CallGuard) Call(cfg LoopGuard, tool, fingerprint, giveUp string) (tell, stop string) {
	cfg = cfg.withDefaults()
	key := tool + " " + fingerprint
	g.Calls++
	if n := len(g.Recent); n > 0 && g.Recent[n-1] == key {
		g.Run++
	} else {
		g.Run = 1
	}
	g.Recent = append(g.Recent, key)
	if keep := 3 * cycleRuns; len(g.Recent) > keep {
		g.Recent = g.Recent[len(g.Recent)-keep:]
	}
	what := describeCall(tool, fingerprint)
	switch n := g.Run; {
	case n >= cfg.StopRepeat:
		return "", fmt.Sprintf("loop guard: the agent made the same call %d times in a row (%s)", n, what)
	case n == cfg.WarnRepeat:
		return fmt.Sprintf("you have made the same call %d times in a row (%s): it will not give a different result; change approach, or %s", n, what, giveUp), ""
	}
	if c := cycle(g.Recent); c != "" {
		switch {
		case g.Cycle == "":
			g.Cycle, g.CycleAt = c, g.Calls
			return "you are going round in a cycle of calls (" + c + "): stop and change approach, or " + giveUp, ""
		case g.Calls-g.CycleAt >= 2*strings.Count(c, " → ")+2:
			return "", "loop guard: the agent kept going round the cycle " + c + " after it was told"
		}
	}
	switch {
	case g.Calls > cfg.MaxCalls+max(1, cfg.MaxCalls/10):
		return "", fmt.Sprintf("loop guard: %d tool calls in one session, past the ceiling of %d", g.Calls, cfg.MaxCalls)
	case g.Calls > cfg.MaxCalls && !g.Told:
		g.Told = true
		return fmt.Sprintf("you have made %d tool calls in this session, more than the work should need: finish what is at hand and commit, or %s", g.Calls, giveUp), ""
	}
	return "", ""
}

// cycle reports the cycle of two or three distinct calls that the recent
// calls end with, repeated cycleRuns times, as "A → B", or "".
func cycle(recent []string) string {
	for period := 2; period <= 3; period++ {
		n := period * cycleRuns
		if len(recent) < n {
			continue
		}
		tail := recent[len(recent)-n:]
		ok := true
		for i := period; i < n && ok; i++ {
			ok = tail[i] == tail[i-period]
		}
		distinct := map[string]bool{}
		for _, k := range tail[:period] {
			distinct[k] = true
		}
		if ok && len(distinct) == period {
			names := make([]string, period)
			for i, k := range tail[:period] {
				tool, text, _ := strings.Cut(k, " ")
				names[i] = describeCall(tool, text)
			}
			return strings.Join(names, " → ")
		}
	}
	return ""
}

// describeCall names a call for a human: the tool and what the fingerprint
// says of its input (after the hash).
func describeCall(tool, fingerprint string) string {
	_, summary, _ := strings.Cut(fingerprint, " ")
	if summary == "" {
		return tool
	}
	if len(summary) > 80 {
		summary = summary[:80] + "…"
	}
	return tool + " " + summary
}

// Clone copies g, so that a copy shares nothing with it.
func (g CallGuard) Clone() CallGuard {
	c := g
	c.Recent = append([]string(nil), g.Recent...)
	return c
}
