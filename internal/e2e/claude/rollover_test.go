package claude_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/runner"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// completedRowRe is a row of a continuation prompt's <completed_tasks>.
var completedRowRe = regexp.MustCompile(`(?m)^\| (\d+) \| .* \| [0-9a-f]{7,} \|$`)

// rolloverRule plays an executor asked to hand over (it answers with its
// notes as a HIVE_REPORT and ends its turn) and the fresh session after a
// rollover (it goes on after the last task with its commit); the rest is
// the ordinary executor's.
func rolloverRule(t *testing.T, root string) fa.Rule {
	return fa.Rule{
		Name: "rollover",
		Match: func(c *fa.Conversation) bool {
			return planOf(c) != "" && (askedToHandOver(c) || isHandover(firstUserText(c)))
		},
		Reply: func(c *fa.Conversation) fa.Reply {
			id := planOf(c)
			if askedToHandOver(c) {
				return fa.Text(`Handing over.
<!--HIVE_REPORT {"status": "partial", "summary": "the next task is the last; nothing half done", "decisions": [{"decision": "the session store keeps tokens in memory", "rationale": "no database yet"}], "concerns": ["the provider was chosen at the checkpoint"]} HIVE_REPORT-->`)
			}
			first := firstUserText(c)
			from := 1
			for _, m := range completedRowRe.FindAllStringSubmatch(first, -1) {
				var n int
				fmt.Sscan(m[1], &n)
				from = max(from, n+1)
			}
			steps := append([]step{static(fa.Bash(fmt.Sprintf("git log --oneline --grep 'Hive-Plan: %s'", id)))},
				segment(root, id, from, "", true)...)
			_, k := c.LastPrompt()
			if k >= len(steps) {
				t.Errorf("plan %s: the fresh session ran out of script at step %d", id, k)
				return fa.Text("PLAN FAILED\n\n**Plan:** " + id + "\n**Error:** the script ran out")
			}
			return steps[k](c)
		},
	}
}

// askedToHandOver: hive's rollover request is the newest message. Claude
// Code 2.1.330 folds a message sent mid-turn into the turn as a system
// message ("The user sent a new message while you were working:\n…");
// one sent between turns is a user message of its own.
func askedToHandOver(c *fa.Conversation) bool {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role == "assistant" {
			return false
		}
		for _, b := range m.Content {
			if b.Type == "text" && strings.Contains(b.Text, protocol.RolloverPrefix) {
				return true
			}
		}
	}
	return false
}

func isHandover(prompt string) bool { return strings.Contains(prompt, "<handover>") }

// TestRolloverRealClaude: the fake API reports each session's context
// growing by 50,000 tokens a request, so the live sessions pass the handoff
// point (130,000 tokens) after their checkpoint's answer. Each is asked to
// hand over at its next task boundary, answers with its notes, and a fresh
// Claude Code session finishes the plan: no task repeated, the answer given
// before the rollover and the notes in the fresh session's prompt, and no
// compaction by the CLI itself.
func TestRolloverRealClaude(t *testing.T) {
	t.Parallel()
	o := runPhase(t, true, false, func(root string, s *fa.Script, ro *runner.Options) {
		s.ContextGrowth = 50_000
		s.Rules = append([]fa.Rule{rolloverRule(t, root)}, s.Rules...)
		ro.Agents.Context = phase.ContextLimits{HandoffTokens: 130_000}
	})
	o.check(t)
	rolled := 0
	for _, p := range o.res.Snapshot.Plans {
		c := p.Context
		t.Logf("plan %s: %d rollover(s), %d compaction(s), peak %d tokens of %d, handoff at %d", p.Spec.ID, c.Rollovers, c.Compactions, c.Peak, c.Window, c.Handoff)
		rolled += c.Rollovers
		if c.Compactions != 0 {
			t.Errorf("plan %s: the CLI compacted %d time(s); hive should have handed over first", p.Spec.ID, c.Compactions)
		}
		if c.Window != 1_000_000 {
			t.Errorf("plan %s: window %d, want the 1,000,000 Claude Code reports", p.Spec.ID, c.Window)
		}
	}
	if rolled == 0 {
		t.Fatalf("no session rolled over\nobserver:\n%s", o.obs)
	}
	fresh := 0
	for _, r := range o.srv.MainRequests() {
		first := firstUserText(r.Conv)
		if !isHandover(first) || planOf(r.Conv) != "03-01" {
			continue
		}
		fresh++
		for _, want := range []string{"Task 2 (decision): clerk", "the next task is the last; nothing half done",
			"Decision: the session store keeps tokens in memory (no database yet)", "Task 3: Session"} {
			if !strings.Contains(first, want) {
				t.Errorf("the fresh session's prompt lacks %q:\n%s", want, first)
			}
		}
	}
	if fresh == 0 {
		t.Errorf("plan 03-01 had no fresh session after its rollover\nobserver:\n%s", o.obs)
	}
}
