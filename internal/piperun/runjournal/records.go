package runjournal

import (
	"encoding/json"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/workflows"
)

// Delivery is what became of a finished run's work, journaled after the
// machine's last event: the branch and its last commit, whether it was
// merged, pushed, and the pull request opened for it.
type Delivery struct {
	Tip         string `json:"tip"`
	Branch      string `json:"branch,omitempty"`
	Merged      bool   `json:"merged"`
	Pushed      bool   `json:"pushed,omitempty"`
	PullRequest string `json:"pull_request,omitempty"`
	// Undelivered: why the completed work is on its branch although it
	// was to be merged or pushed (Result.Undelivered).
	Undelivered string   `json:"undelivered,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// DeliveredEvent is the journal type of a Delivery; the machine never
// steps it.
const DeliveredEvent = "pipeline-delivered"

// WarnedEvent is the journal type of the warnings a role was given (the
// machine never steps it): a run can be explained from its journal.
const WarnedEvent = "memory-warned"

// Warned is a WarnedEvent's payload.
type Warned struct {
	Job      string   `json:"job"`
	Attempt  int      `json:"attempt"`
	Keys     []string `json:"keys"`
	Warnings []string `json:"warnings"`
}

// ContextEvent is the journal type of the context a role was given (the
// machine never steps it): which parts, and how big.
const ContextEvent = "role-context"

// ContextRecord is a ContextEvent's payload: what a role was given beside
// its prompt.
type ContextRecord struct {
	Job     string        `json:"job"`
	Attempt int           `json:"attempt"`
	Parts   []ContextPart `json:"parts"`
}

// ContextPart is one part of a role's context as journaled: its title, its
// size, and whether it was cut to the bounds.
type ContextPart struct {
	Title string `json:"title"`
	Bytes int    `json:"bytes"`
	Cut   bool   `json:"cut,omitempty"`
}

// ConfidenceEvent is the journal type of the run's computed confidence,
// one score per role that worked (the machine never steps it).
const ConfidenceEvent = memory.ConfidenceRecord

// Confidence is the computed confidence run journaled, if any.
func Confidence(j journal.Journal, run int64) []confidence.Score {
	var out []confidence.Score
	_ = j.Each(run, func(rec journal.Record) error {
		if rec.Type == ConfidenceEvent {
			out = nil
			_ = json.Unmarshal(rec.Payload, &out)
		}
		return nil
	})
	return out
}

// PlannedEvent is the journal type of how the run's workflow was chosen
// (the machine never steps it).
const PlannedEvent = "run-planned"

// Planning is how a run's workflow was chosen, as journaled.
type Planning struct {
	By        string           `json:"by"` // "planner", or "rules" when the planner's answers would not do
	Workflow  string           `json:"workflow"`
	Reasoning string           `json:"reasoning"`
	Attempts  []PlanAttempt    `json:"attempts"`
	Steps     []workflows.Step `json:"steps"`
}

// PlanAttempt is one call of the planner.
type PlanAttempt struct {
	Error  string `json:"error,omitempty"`
	Tokens int64  `json:"tokens"`
}

// PostmortemEvent is the journal type of the narrative a model wrote of
// the run (the machine never steps it).
const PostmortemEvent = "run-postmortem"

// PostmortemRecord is a PostmortemEvent's payload: the model's paragraph,
// or why there is none (the template's then tells the run).
type PostmortemRecord struct {
	Narrative string `json:"narrative,omitempty"`
	Error     string `json:"error,omitempty"`
	Tokens    int64  `json:"tokens"`
}

// Narrative is the model's paragraph of run, if one was journaled.
func Narrative(j journal.Journal, run int64) string {
	var t PostmortemRecord
	_ = j.Each(run, func(rec journal.Record) error {
		if rec.Type == PostmortemEvent {
			t = PostmortemRecord{}
			_ = json.Unmarshal(rec.Payload, &t)
		}
		return nil
	})
	return t.Narrative
}
