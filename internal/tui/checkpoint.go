package tui

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/phase"
)

// typeTitles are seed 000's display names of checkpoint types.
var typeTitles = map[string]string{
	"human-verify":            "Verification Required",
	"decision":                "Decision Required",
	"human-action":            "Action Required",
	"auth-gate":               "Authentication Required",
	"architectural-deviation": "Architectural Decision Needed",
	"plan-failed":             "Plan Failed",
	"permission":              "Permission Requested",
	phase.KindBudget:          "Budget Checkpoint",
}

// Title is a checkpoint's display name ("Decision Required").
func Title(cp phase.Checkpoint) string {
	if t, ok := typeTitles[cp.Type]; ok {
		return t
	}
	return cp.Type
}

// YourAction is the text of a checkpoint's "→ YOUR ACTION" line.
func YourAction(cp phase.Checkpoint) string {
	switch {
	case cp.Kind == phase.KindFailure:
		return "Type retry, skip or abort"
	case cp.Kind == phase.KindPermission:
		return "Type allow, deny (optionally with a reason) or always (allow " + cp.Tool + " for the rest of the run)"
	case cp.Kind == phase.KindBudget:
		return "Type raise (half as much again), raise AMOUNT (the new ceiling) or stop (what is done stays done)"
	case cp.Type == "human-verify":
		return `Type "approved" or describe issues`
	case cp.Type == "decision" && len(cp.Options) > 0:
		return "Select: " + strings.Join(cp.Options, ", ") + " (or its number)"
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return `Type "done" when the action is complete`
	case cp.Kind == phase.KindDeviation:
		return "Proceed with proposed change? (yes / different approach / defer)"
	}
	return "Type your answer"
}

// QueueText is the checkpoint queue in seed 000's format: the open
// checkpoint (queue[0]) in full, the others by title. Plain text, one
// trailing newline; "" for an empty queue.
func QueueText(queue []phase.Checkpoint, plans []*phase.PlanStatus) string {
	if len(queue) == 0 {
		return ""
	}
	var b strings.Builder
	cp := queue[0]
	fmt.Fprintf(&b, "\n## Checkpoint Queue (%d pending)\n\n", len(queue))
	b.WriteString(headText(cp, plans, len(queue)))
	for i, q := range queue[1:] {
		fmt.Fprintf(&b, "### %d of %d: %s (waiting its turn)\n", i+2, len(queue), heading(q))
	}
	return b.String()
}

// headText is the open checkpoint from its "### 1 of N" line to its
// "→ YOUR ACTION" line.
func headText(cp phase.Checkpoint, plans []*phase.PlanStatus, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### 1 of %d: %s\n\n", n, heading(cp))
	if cp.Kind == phase.KindBudget {
		b.WriteString("**Waiting:** every plan: no agent starts until you answer\n")
	} else {
		fmt.Fprintf(&b, "**Plan:** %s %s\n**Executor:** executor-%s\n", cp.Plan, planName(plans, cp.Plan), cp.Plan)
	}
	if cp.Total > 0 {
		fmt.Fprintf(&b, "**Progress:** %d/%d tasks complete\n", cp.Done, cp.Total)
	}
	if w := where(cp); w != "" {
		fmt.Fprintf(&b, "**Worktree:** %s\n", w)
	}
	if d := strings.TrimSpace(cp.Details); d != "" {
		fmt.Fprintf(&b, "\n%s\n", d)
	}
	if a := strings.TrimSpace(cp.Awaiting); a != "" {
		fmt.Fprintf(&b, "\n### Awaiting\n%s\n", a)
	}
	fmt.Fprintf(&b, "\n→ YOUR ACTION: %s\n", YourAction(cp))
	return b.String()
}

// heading names a checkpoint in the queue: its plan and title, or the
// budget's, which is the whole run's.
func heading(cp phase.Checkpoint) string {
	if cp.Kind == phase.KindBudget {
		return Title(cp) + " — the whole run"
	}
	return fmt.Sprintf("Plan %s — %s", cp.Plan, Title(cp))
}

// where is the folder (and branch) to look at for a checkpoint that asks
// the human to verify or to act: the plan's worktree. A decision needs only
// its options.
func where(cp phase.Checkpoint) string {
	if cp.Worktree == "" || cp.Type == "decision" {
		return ""
	}
	if cp.Branch != "" {
		return cp.Worktree + " (branch " + cp.Branch + ")"
	}
	return cp.Worktree
}

func planName(plans []*phase.PlanStatus, id string) string {
	for _, p := range plans {
		if p.Spec.ID == id {
			return p.Spec.Name
		}
	}
	return ""
}
