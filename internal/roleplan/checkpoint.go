package roleplan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// CheckpointKind says why a human is asked.
type CheckpointKind string

const (
	KindChallenge  CheckpointKind = "challenge"    // a handoff challenged a second time
	KindTests      CheckpointKind = "tests"        // tests still fail after the fix loops
	KindNeedsInput CheckpointKind = "needs-input"  // a role asks for a decision
	KindBlocked    CheckpointKind = "blocked"      // a role is blocked, or keeps crashing
	KindLint       CheckpointKind = "lint"         // the architect's plans still do not lint
	KindPhase      CheckpointKind = "phase"        // the implementers' phase did not complete
	KindBudget     CheckpointKind = "budget"       // a ceiling of the budget is reached
	KindBuild      CheckpointKind = "build"        // the build still fails after the fix loops, or cannot run
	KindReview     CheckpointKind = "review"       // a step asks a human to look at its work (checkpoint)
	KindFindings   CheckpointKind = "findings"     // reviewers found open blockers
	KindEvaluation CheckpointKind = "evaluation"   // the evaluators block a second time, or confidence is under the floor
	KindFollow     CheckpointKind = "pull-request" // the pull request still fails after the fix loops, or a push failed
)

// Answers a checkpoint offers (needs-input takes any text).
const (
	AnswerAccept   = "accept"   // challenge: re-run the challenged role, then the challenger
	AnswerOverride = "override" // challenge: the challenger proceeds
	AnswerRetry    = "retry"    // run the role (or the fix loop) once more
	AnswerContinue = "continue" // go on to the next role as it is
	AnswerAbort    = "abort"    // end the run; the work stays on its branch
	AnswerRaise    = "raise"    // budget: raise the ceiling (or raise AMOUNT) and go on
	AnswerStop     = "stop"     // budget: end the run; the work stays on its branch
	AnswerDetails  = "details"  // a role's work: show every check and note, and ask again
	AnswerReject   = "reject"   // a role's work: reject FEEDBACK runs the role again with it
)

// Checkpoint is a question for the human.
type Checkpoint struct {
	ID       int            `json:"id"`
	Job      string         `json:"job"`
	Kind     CheckpointKind `json:"kind"`
	Question string         `json:"question"`
	Details  string         `json:"details,omitempty"`
	Options  []string       `json:"options"`
	// Challenge shows both sides of a second challenge.
	Challenge *Challenge `json:"challenge,omitempty"`
	Previous  *Challenge `json:"previous,omitempty"`
	Default   string     `json:"default,omitempty"`
	// Ceiling (KindBudget) is the ceiling reached: CeilingRun or a role;
	// Limit and Spent are its amount and what is spent of it, in dollars,
	// or in tokens for a TokenCeiling.
	Ceiling      string  `json:"ceiling,omitempty"`
	Limit        float64 `json:"limit,omitempty"`
	Spent        float64 `json:"spent,omitempty"`
	TokenCeiling bool    `json:"token_ceiling,omitempty"`
	// Findings (KindFindings) are the findings of the jobs From, as they
	// stand; View asks to show them with their code.
	Findings []Finding `json:"findings,omitempty"`
	From     []string  `json:"from,omitempty"`
	View     bool      `json:"view,omitempty"`
	// Interview (KindNeedsInput): one of the interviewer's questions.
	Interview bool `json:"interview,omitempty"`
	// Evaluation (KindReview, KindEvaluation) is the role's work judged:
	// the three verdicts, the computed confidence and its parts.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
}

// Outcomes of a run.
const (
	OutcomeComplete = "complete"
	OutcomeFailed   = "failed"
	OutcomeAborted  = "aborted"
)

// Example is an answer the checkpoint takes, for a command shown to the
// user: its default, else its first option, else (a question of free
// text) a placeholder.
func (cp *Checkpoint) Example() string {
	switch {
	case cp.Default != "":
		return cp.Default
	case len(cp.Options) > 0:
		return cp.Options[0]
	}
	return "your answer"
}

// Check says whether text answers the checkpoint: one of its options (in
// any case), for a question any text, for the budget a raise above what
// is spent, or stop.
func (cp *Checkpoint) Check(text string) error {
	text = strings.TrimSpace(text)
	if cp.Kind == KindBudget {
		_, _, err := cp.Raise(text)
		return err
	}
	if cp.Kind == KindFindings {
		return cp.checkFindings(text)
	}
	if cp.Kind == KindReview || cp.Kind == KindEvaluation {
		return cp.checkReview(text)
	}
	if cp.Kind == KindNeedsInput {
		if text == "" {
			return fmt.Errorf("an empty answer to the question of %s", cp.Job)
		}
		return nil
	}
	if !slices.Contains(cp.Options, strings.ToLower(text)) {
		return fmt.Errorf("answer one of %s, not %q", strings.Join(cp.Options, ", "), text)
	}
	return nil
}

// Raise reads the answer to a budget checkpoint: the factor its ceiling is
// raised by, or stop.
func (cp *Checkpoint) Raise(text string) (stop bool, factor float64, err error) {
	stop, factor, err = work.ReadBudgetAnswer(text, cp.Limit)
	switch {
	case err != nil || stop:
		return stop, factor, err
	case cp.Limit*factor <= cp.Spent:
		return false, 0, fmt.Errorf("%s is already spent: raise the budget above it, or answer stop", cp.amount(cp.Spent))
	}
	return false, factor, nil
}

func (cp *Checkpoint) amount(v float64) string {
	if cp.TokenCeiling {
		return fmt.Sprintf("%.0f tokens", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// checkReview says whether text answers a checkpoint that offers reject:
// reject needs the feedback the role is given.
func (cp *Checkpoint) checkReview(text string) error {
	if cp.Kind == KindReview && strings.EqualFold(text, AnswerRetry) {
		return nil // what a step checkpoint offered before reject: journals of then replay
	}
	word, rest, _ := strings.Cut(text, " ")
	if strings.EqualFold(word, AnswerReject) && strings.TrimSpace(rest) == "" {
		return fmt.Errorf("reject needs the feedback the %s works again with: reject FEEDBACK, e.g. \"reject the upload has no size limit\"", cp.Job)
	}
	if slices.Contains(cp.Options, strings.ToLower(word)) && (rest == "" || strings.EqualFold(word, AnswerReject)) {
		return nil
	}
	return fmt.Errorf("answer one of %s, not %q", strings.Join(cp.Options, ", "), text)
}

// FindingRef splits "F2 the reason" into the finding's id and the rest.
func FindingRef(text string) (id, rest string) {
	head, tail, _ := strings.Cut(text, " ")
	if len(head) > 1 && (head[0] == 'F' || head[0] == 'f') && strings.Trim(head[1:], "0123456789") == "" {
		return "F" + head[1:], strings.TrimSpace(tail)
	}
	return "", text
}

// checkFindings says whether text answers a findings checkpoint.
func (cp *Checkpoint) checkFindings(text string) error {
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	word = strings.ToLower(word)
	id, reason := FindingRef(strings.TrimSpace(rest))
	if id != "" && !slices.ContainsFunc(cp.Findings, func(f Finding) bool { return f.ID == id }) {
		return fmt.Errorf("no finding %s here (findings: %s)", id, findingIDs(cp.Findings))
	}
	switch word {
	case AnswerFix, AnswerView, AnswerQuit:
		return nil
	case AnswerAccept:
		if reason == "" {
			return fmt.Errorf("accept needs a reason, recorded with the finding: accept [ID] REASON, e.g. \"accept the endpoint is internal only\"")
		}
		return nil
	case AnswerDefer:
		for _, f := range cp.Findings {
			if f.ID == id && f.Severity == SevBlocker {
				return fmt.Errorf("%s is a blocker: a blocker is fixed or accepted with a reason, not deferred", id)
			}
		}
		return nil
	case AnswerContinue:
		for _, f := range cp.Findings {
			if f.Severity == SevBlocker && f.Status == FindingOpen {
				return fmt.Errorf("%s is an open blocker: fix it, or accept it with a reason, before the run goes on (or quit)", f.ID)
			}
		}
		return nil
	}
	return fmt.Errorf("answer fix, view, accept [ID] REASON, defer [ID], continue or quit, not %q", text)
}

func findingIDs(fs []Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, ", ")
}
