package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/engine"
)

// TestQueueTextSaysWhere: a human-verify or human-action checkpoint names
// the worktree and branch to look at; a decision names its options by id
// and no folder.
func TestQueueTextSaysWhere(t *testing.T) {
	s := decisionSnapshot()
	for i := range s.Queue {
		s.Queue[i].Worktree, s.Queue[i].Branch = "/wt/01/"+s.Queue[i].Plan, "hive/01/"+s.Queue[i].Plan
	}
	dec, ver := s.Queue[0], s.Queue[1]
	act := ver
	act.Type, act.Details = "human-action", "Create the webhook in the Stripe dashboard"

	text := QueueText([]engine.Checkpoint{ver, dec}, s.Plans)
	for _, want := range []string{"**Worktree:** /wt/01/01-04 (branch hive/01/01-04)", "→ YOUR ACTION: Type \"approved\" or describe issues"} {
		if !strings.Contains(text, want) {
			t.Errorf("human-verify lacks %q:\n%s", want, text)
		}
	}
	if text := QueueText([]engine.Checkpoint{act}, s.Plans); !strings.Contains(text, "**Worktree:** /wt/01/01-04 (branch hive/01/01-04)") {
		t.Errorf("human-action does not say where:\n%s", text)
	}
	text = QueueText([]engine.Checkpoint{dec}, s.Plans)
	if strings.Contains(text, "Worktree") {
		t.Errorf("a decision names a folder:\n%s", text)
	}
	if !strings.Contains(text, "→ YOUR ACTION: Select: sqlite-fts, bleve, meilisearch (or its number)") {
		t.Errorf("the decision's option ids are missing:\n%s", text)
	}
	// Without a place (a checkpoint journaled by an older hive) nothing is made up.
	ver.Worktree, ver.Branch = "", ""
	if text := QueueText([]engine.Checkpoint{ver}, s.Plans); strings.Contains(text, "Worktree") {
		t.Errorf("a place without data:\n%s", text)
	}
}

// TestRenderMarkdown: the markers go, lists keep their text under their
// bullet when wrapped, tables line up and are never wrapped.
func TestRenderMarkdown(t *testing.T) {
	md := "## Phase 01: core Execution Complete\n\n**Waves:** 2 | **Plans:** 2/3 complete\n\n" +
		"| Wave | Plans | Status | Commits |\n|------|-------|--------|---------|\n| 1 | 01-01, 01-02 | Complete | 7 |\n\n" +
		"### Issues Encountered\n- 01-03 failed: agent exited with code 1 before PLAN COMPLETE; spot-check failed: no SUMMARY\n" +
		"Run `go test ./...` *first*, then __commit__.\n"
	got := stripped(RenderMarkdown(md, 40))
	want := `Phase 01: core Execution Complete

Waves: 2 | Plans: 2/3 complete

 Wave  Plans         Status    Commits
 ────  ────────────  ────────  ───────
 1     01-01, 01-02  Complete  7

Issues Encountered
• 01-03 failed: agent exited with code 1
  before PLAN COMPLETE; spot-check
  failed: no SUMMARY
Run go test ./... first, then commit.
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A table wider than the screen wraps its widest column.
	table := "| Wave | Plans | Status | Commits |\n|---|---|---|---|\n| 2 | 01-03 (1 checkpoint(s) resolved), 01-04 (1 checkpoint(s) resolved) | Complete | 8 |\n"
	got = stripped(RenderMarkdown(table, 60))
	want = ` Wave  Plans                              Status    Commits
 ────  ─────────────────────────────────  ────────  ───────
 2     01-03 (1 checkpoint(s) resolved),  Complete  8
       01-04 (1 checkpoint(s) resolved)
`
	if got != want {
		t.Errorf("a wide table at 60 cells:\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if n := ansi.StringWidth(l); n > 60 {
			t.Errorf("%d cells in a 60-cell screen: %q", n, l)
		}
	}
}
