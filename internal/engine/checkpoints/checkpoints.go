package checkpoints

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/work"
)

// Queue is the run's open checkpoints, with the ids given and the answers
// counted.
type Queue struct {
	open     []*phase.Checkpoint // first in first out
	last     int                 // the last checkpoint id given
	resolved int                 // checkpoints answered (failures aside)
	// always are the tools a human allowed for the rest of the run.
	always map[string]bool
}

// Add gives cp the next id (1, 2, ... within the run, in arrival order)
// and queues it.
func (q *Queue) Add(cp *phase.Checkpoint) {
	q.last++
	cp.ID = q.last
	q.open = append(q.open, cp)
}

// Remove takes the checkpoints of plan (or of VerifyID, BudgetID) out of
// the queue.
func (q *Queue) Remove(plan string) {
	open := q.open[:0]
	for _, cp := range q.open {
		if cp.Plan != plan {
			open = append(open, cp)
		}
	}
	q.open = open
}

// Len is how many checkpoints are open.
func (q *Queue) Len() int { return len(q.open) }

// Open copies the open checkpoints, first in first out.
func (q *Queue) Open() []phase.Checkpoint {
	var out []phase.Checkpoint
	for _, cp := range q.open {
		out = append(out, *cp)
	}
	return out
}

// Resolve counts an answered checkpoint.
func (q *Queue) Resolve() { q.resolved++ }

// Resolved counts the checkpoints answered so far (failures aside).
func (q *Queue) Resolved() int { return q.resolved }

// Allow allows tool for the rest of the run.
func (q *Queue) Allow(tool string) {
	if q.always == nil {
		q.always = map[string]bool{}
	}
	q.always[tool] = true
}

// Allowed reports whether a human allowed tool for the rest of the run.
func (q *Queue) Allowed(tool string) bool { return q.always[tool] }

// Record puts the queue into s, the engine's exported state.
func (q *Queue) Record(s *phase.State) {
	s.LastCP, s.Resolved = q.last, q.resolved
	for tool := range q.always {
		s.Always = append(s.Always, tool)
	}
	sort.Strings(s.Always)
	for _, cp := range q.open {
		s.Queue = append(s.Queue, cp.ID)
	}
}

// Restore is the queue that s records; open are the open checkpoints by
// id, each a plan's, the verification's or the budget's.
func Restore(s phase.State, open map[int]*phase.Checkpoint) (Queue, error) {
	q := Queue{last: s.LastCP, resolved: s.Resolved}
	for _, tool := range s.Always {
		q.Allow(tool)
	}
	for _, id := range s.Queue {
		cp := open[id]
		if cp == nil {
			return Queue{}, fmt.Errorf("restore: queued checkpoint %d is no plan's open checkpoint", id)
		}
		q.open = append(q.open, cp)
	}
	return q, nil
}

// Of is the checkpoint an EvCheckpoint or EvDeviation event raises, with
// its kind and its defaults; a permission request is Permission's.
func Of(ev phase.Event) *phase.Checkpoint {
	cp := *ev.Checkpoint
	cp.Kind = phase.KindCheckpoint
	if ev.Type == phase.EvDeviation {
		cp.Kind = phase.KindDeviation
		if cp.Type == "" {
			cp.Type = "architectural-deviation"
		}
		if len(cp.Options) == 0 {
			cp.Options = []string{"yes", "different approach", "defer"}
		}
	}
	if cp.Type == "" {
		cp.Type = "unknown"
	}
	return &cp
}

// Raised fills in cp, raised by spec's plan's agent of attempt at now,
// tasksDone tasks into the plan: the task it stops at, the gate and
// options its plan declares for that task, and whether the answer goes to
// a continuation (standalone) rather than to the live agent that asked
// (live: its process has not been seen to exit).
func Raised(cp *phase.Checkpoint, spec phase.PlanSpec, attempt, tasksDone int, now time.Time, standalone, live bool) {
	cp.Plan, cp.Attempt, cp.Raised = spec.ID, attempt, now
	if cp.Task == 0 && cp.Done > 0 {
		cp.Task = cp.Done + 1
	}
	if cp.Task == 0 && cp.Kind == phase.KindCheckpoint {
		cp.Task = tasksDone + 1
	}
	for _, st := range spec.Stops {
		if st.Task == cp.Task {
			cp.Gate = st.Gate
			if len(cp.Options) == 0 {
				cp.Options = append([]string(nil), st.Options...)
			}
		}
	}
	if standalone {
		cp.Standalone = true
	}
	if cp.Kind == phase.KindPermission {
		// Only a live agent asks, in either mode; it waits mid-turn.
		cp.Standalone = !live
	}
}

// Failure is the checkpoint of a plan that did not finish, for reason: the
// human decides between retry, skip and abort (seed 000 §2.7).
func Failure(reason string) *phase.Checkpoint {
	return &phase.Checkpoint{
		Kind:     phase.KindFailure,
		Type:     "plan-failed",
		Details:  reason,
		Awaiting: "retry, skip (its dependents are skipped too) or abort (the whole run)",
		Options:  []string{"retry", "skip", "abort"},
	}
}

// FromReport reads a plan agent's HIVE_REPORT: complete and partial only
// say how the work went (the disk and PLAN COMPLETE still decide that it
// is done); blocked fails the plan like PLAN FAILED (blocked says why);
// needs_input and challenge stop for a human (the checkpoint returned),
// needs_input with its default choice when --yes may take it.
func FromReport(r *work.Report) (cp *phase.Checkpoint, blocked string) {
	switch r.Status {
	case work.ReportBlocked:
		return nil, firstOf(r.Blocker, r.Summary, "no reason given")
	case work.ReportNeedsInput:
		cp := &phase.Checkpoint{Kind: phase.KindCheckpoint, Type: phase.TypeNeedsInput,
			Details:  firstOf(r.Blocker, r.Summary, "the agent needs input"),
			Awaiting: "answer with what the agent needs",
			Options:  append([]string(nil), r.Options...),
			Default:  r.DefaultChoice,
		}
		if len(cp.Options) > 0 {
			cp.Awaiting = "choose one of: " + strings.Join(cp.Options, ", ")
		}
		if !r.CanProceedWithDefault {
			cp.Default = ""
		}
		return cp, ""
	case work.ReportChallenge:
		details := firstOf(r.Issue, r.Summary, "the agent raises a challenge")
		if r.ChallengedAgent != "" {
			details = fmt.Sprintf("challenges %s: %s", r.ChallengedAgent, details)
		}
		for _, kv := range [][2]string{{"evidence", r.Evidence}, {"suggestion", r.Suggestion}, {"severity", r.Severity}} {
			if kv[1] != "" {
				details += "\n" + kv[0] + ": " + kv[1]
			}
		}
		return &phase.Checkpoint{Kind: phase.KindCheckpoint, Type: phase.TypeChallenge, Details: details,
			Awaiting: "accept (the agent goes on with its suggestion), or say how to proceed"}, ""
	}
	return nil, ""
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// Answerable reports whether --yes may answer cp (seed 004: checkpoints
// with gate="blocking-human", human actions and architectural decisions are
// never approved by a machine).
func Answerable(cp *phase.Checkpoint) bool {
	if cp.Gate == "blocking-human" {
		return false
	}
	switch {
	case cp.Kind == phase.KindFailure:
		return true
	case cp.Kind != phase.KindCheckpoint:
		return false
	case cp.Type == "human-verify":
		return true
	case cp.Type == "decision":
		return len(cp.Options) > 0
	case cp.Type == phase.TypeNeedsInput:
		return cp.Default != ""
	}
	return false
}

// Auto is the answer --yes gives cp, if any: a failed plan is retried once
// (retried: it was already), then skipped.
func Auto(cp *phase.Checkpoint, retried bool) (string, bool) {
	if !Answerable(cp) {
		return "", false
	}
	switch {
	case cp.Kind == phase.KindFailure && !retried:
		return "retry", true
	case cp.Kind == phase.KindFailure:
		return "skip", true
	case cp.Type == "decision":
		return cp.Options[0], true
	case cp.Type == phase.TypeNeedsInput:
		return cp.Default, true
	}
	return "approved", true
}

// Read reads a human's answer (ev) to cp, the open checkpoint of plan
// (nil: it has none), and returns the answer to apply: a decision's
// option by its id, a merge conflict's done or abort.
func Read(cp *phase.Checkpoint, plan string, ev phase.Event) (string, error) {
	if cp == nil {
		return "", fmt.Errorf("plan %s has no open checkpoint", plan)
	}
	if ev.CheckpointID != 0 && ev.CheckpointID != cp.ID {
		return "", fmt.Errorf("checkpoint %d of plan %s is no longer open (the open one is %d)", ev.CheckpointID, plan, cp.ID)
	}
	text := strings.TrimSpace(ev.Text)
	if text == "" {
		return "", fmt.Errorf("an empty answer for plan %s: %s", plan, strings.TrimSpace("say what to do. "+cp.Awaiting))
	}
	if cp.Kind == phase.KindFailure {
		if _, ok := FailureChoice(text); !ok {
			return "", fmt.Errorf("plan %s failed: answer retry, skip or abort, not %q", plan, text)
		}
	}
	if cp.Kind == phase.KindMerge {
		text = strings.ToLower(strings.Fields(text)[0])
		if text != "done" && text != "abort" {
			return "", fmt.Errorf("plan %s has a merge conflict: answer done (once resolved and committed) or abort, not %q", plan, ev.Text)
		}
	}
	if cp.Kind == phase.KindPermission {
		if _, _, ok := PermissionChoice(text); !ok {
			return "", fmt.Errorf("plan %s asks permission to use %s: answer allow, deny or always, not %q", plan, cp.Tool, text)
		}
	}
	if cp.Kind == phase.KindCheckpoint && cp.Type == "decision" && len(cp.Options) > 0 {
		id, ok := optionOf(cp.Options, text)
		if !ok {
			return "", fmt.Errorf("plan %s's decision has no option %q: answer one of %s (or its number)", plan, text, strings.Join(cp.Options, ", "))
		}
		text = id
	}
	return text, nil
}

// optionOf finds the option a decision's answer names, by id (any case) or
// by its number in the list.
func optionOf(options []string, text string) (string, bool) {
	for _, o := range options {
		if strings.EqualFold(o, text) {
			return o, true
		}
	}
	n := 0
	if _, err := fmt.Sscanf(text, "%d", &n); err == nil && fmt.Sprint(n) == text && n >= 1 && n <= len(options) {
		return options[n-1], true
	}
	return "", false
}

// FailureChoice reads an answer to a failed plan: retry, skip or abort.
func FailureChoice(text string) (string, bool) {
	w := strings.ToLower(strings.Fields(text)[0])
	switch w {
	case "retry", "skip", "abort":
		return w, true
	}
	return "", false
}

// Permission makes cp, a live agent's request to use a tool (Claude Code
// with --permission-prompt-tool stdio: Tool, RequestID, Input), a
// permission checkpoint: answered allow, deny or always, which allows the
// tool for the rest of the run. --yes never answers one.
func Permission(cp *phase.Checkpoint) {
	cp.Kind, cp.Type = phase.KindPermission, "permission"
	if len(cp.Options) == 0 {
		cp.Options = []string{"allow", "deny", "always"}
	}
}

// PermissionChoice reads an answer to a permission checkpoint: allow (yes,
// 1), deny (no, 2) or always (3), then, for deny, what to tell the agent.
func PermissionChoice(text string) (choice, message string, ok bool) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return "", "", false
	}
	w := strings.ToLower(strings.TrimRight(f[0], ".,:;!"))
	switch w {
	case "allow", "yes", "y", "1":
		choice = "allow"
	case "deny", "no", "n", "2":
		choice = "deny"
	case "always", "3":
		choice = "always"
	default:
		return "", "", false
	}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), f[0]))
	return choice, rest, true
}

// Granted is what the agent that asked is told of the answer to its
// permission checkpoint cp: allow or deny (the CLI's words), and, for
// deny, why, which the model reads.
func Granted(cp *phase.Checkpoint, answer string) (text, reason string) {
	choice, message, _ := PermissionChoice(answer)
	if choice != "deny" {
		return "allow", ""
	}
	reason = "The human denied permission to use " + cp.Tool + " (through hive)."
	if message != "" {
		reason += " They said: " + message
	}
	return "deny", reason
}

// WithAnswers gives continuation c the plan's answered checkpoints other
// than the one it resumes from, so that no question is asked twice, and
// the notes of the last session that handed over.
func WithAnswers(c *phase.Continuation, answered []phase.Checkpoint, notes *work.Report) *phase.Continuation {
	if c == nil || (len(answered) == 0 && notes == nil) {
		return c
	}
	cc := *c
	if cc.Notes == nil {
		cc.Notes = notes
	}
	cc.Answered = nil
	for _, a := range answered {
		if c.Checkpoint == nil || a.ID != c.Checkpoint.ID {
			cc.Answered = append(cc.Answered, a)
		}
	}
	return &cc
}
