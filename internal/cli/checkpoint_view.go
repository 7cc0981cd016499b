package cli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/runner"
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
}

func titleOf(cp engine.Checkpoint) string {
	if t, ok := typeTitles[cp.Type]; ok {
		return t
	}
	return cp.Type
}

// yourAction is the "→ YOUR ACTION" line of a checkpoint.
func yourAction(cp engine.Checkpoint) string {
	switch {
	case cp.Kind == engine.KindFailure:
		return "Type retry, skip or abort"
	case cp.Kind == engine.KindPermission:
		return "Type allow, deny (optionally with a reason) or always (allow " + cp.Tool + " for the rest of the run)"
	case cp.Type == "human-verify":
		return `Type "approved" or describe issues`
	case cp.Type == "decision" && len(cp.Options) > 0:
		return "Select: " + strings.Join(cp.Options, ", ") + " (or its number)"
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return `Type "done" when the action is complete`
	case cp.Kind == engine.KindDeviation:
		return "Proceed with proposed change? (yes / different approach / defer)"
	}
	return "Type your answer"
}

// writeQueue prints the checkpoint queue in seed 000's format: the open
// checkpoint in full, the others by title.
func writeQueue(w io.Writer, queue []engine.Checkpoint, plans []engine.PlanStatus) {
	if len(queue) == 0 {
		return
	}
	name := map[string]string{}
	for _, p := range plans {
		name[p.Spec.ID] = p.Spec.Name
	}
	cp := queue[0]
	fmt.Fprintf(w, "\n## Checkpoint Queue (%d pending)\n\n", len(queue))
	fmt.Fprintf(w, "### 1 of %d: Plan %s — %s\n\n", len(queue), cp.Plan, titleOf(cp))
	fmt.Fprintf(w, "**Plan:** %s %s\n**Executor:** executor-%s\n", cp.Plan, name[cp.Plan], cp.Plan)
	if cp.Total > 0 {
		fmt.Fprintf(w, "**Progress:** %d/%d tasks complete\n", cp.Done, cp.Total)
	}
	if d := strings.TrimSpace(cp.Details); d != "" {
		fmt.Fprintf(w, "\n%s\n", d)
	}
	if a := strings.TrimSpace(cp.Awaiting); a != "" {
		fmt.Fprintf(w, "\n### Awaiting\n%s\n", a)
	}
	fmt.Fprintf(w, "\n→ YOUR ACTION: %s\n", yourAction(cp))
	for i, q := range queue[1:] {
		fmt.Fprintf(w, "### %d of %d: Plan %s — %s (waiting its turn)\n", i+2, len(queue), q.Plan, titleOf(q))
	}
}

// prompter reads answers typed in the terminal that runs hive and sends each
// to the checkpoint shown last: the head of the queue.
type prompter struct {
	mu   sync.Mutex
	head *engine.Checkpoint
	out  chan runner.Answer
}

func newPrompter(in io.Reader, done <-chan struct{}) *prompter {
	p := &prompter{out: make(chan runner.Answer)}
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			text := strings.TrimSpace(sc.Text())
			p.mu.Lock()
			head := p.head
			p.mu.Unlock()
			if text == "" || head == nil {
				continue
			}
			select {
			case p.out <- runner.Answer{Plan: head.Plan, Text: optionByNumber(*head, text)}:
			case <-done:
				return
			}
		}
	}()
	return p
}

func (p *prompter) show(queue []engine.Checkpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.head = nil
	if len(queue) > 0 {
		cp := queue[0]
		p.head = &cp
	}
}

// optionByNumber lets a human pick a decision's option by its number.
func optionByNumber(cp engine.Checkpoint, text string) string {
	if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(cp.Options) {
		return cp.Options[n-1]
	}
	return text
}
