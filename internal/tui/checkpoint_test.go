package tui

import (
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/phase"
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

	text := QueueText([]phase.Checkpoint{ver, dec}, s.Plans)
	for _, want := range []string{"**Worktree:** /wt/01/01-04 (branch hive/01/01-04)", "→ YOUR ACTION: Type \"approved\" or describe issues"} {
		if !strings.Contains(text, want) {
			t.Errorf("human-verify lacks %q:\n%s", want, text)
		}
	}
	if text := QueueText([]phase.Checkpoint{act}, s.Plans); !strings.Contains(text, "**Worktree:** /wt/01/01-04 (branch hive/01/01-04)") {
		t.Errorf("human-action does not say where:\n%s", text)
	}
	text = QueueText([]phase.Checkpoint{dec}, s.Plans)
	if strings.Contains(text, "Worktree") {
		t.Errorf("a decision names a folder:\n%s", text)
	}
	if !strings.Contains(text, "→ YOUR ACTION: Select: sqlite-fts, bleve, meilisearch (or its number)") {
		t.Errorf("the decision's option ids are missing:\n%s", text)
	}
	// Without a place (a checkpoint journaled by an older hive) nothing is made up.
	ver.Worktree, ver.Branch = "", ""
	if text := QueueText([]phase.Checkpoint{ver}, s.Plans); strings.Contains(text, "Worktree") {
		t.Errorf("a place without data:\n%s", text)
	}
}
