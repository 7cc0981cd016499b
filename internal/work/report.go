package work

import "encoding/json"

// Report is an agent's HIVE_REPORT block (seed 003): how its work ended,
// how sure it is, what it changed and decided, and, for the statuses that
// stop it, the challenge it raises or the input it needs. Keys hive does
// not read are kept in Extra, as written, so that a newer prompt's fields
// reach the journal.
type Report struct {
	Status     string     `json:"status"` // complete, partial, blocked, challenge, needs_input
	Summary    string     `json:"summary,omitempty"`
	Confidence float64    `json:"confidence,omitempty"`
	Files      []string   `json:"files,omitempty"`
	Decisions  []Decision `json:"decisions,omitempty"`
	Concerns   []string   `json:"concerns,omitempty"`

	// challenge
	ChallengedAgent string `json:"challenged_agent,omitempty"`
	Issue           string `json:"issue,omitempty"`
	Evidence        string `json:"evidence,omitempty"`
	Suggestion      string `json:"suggestion,omitempty"`
	Severity        string `json:"severity,omitempty"`

	// needs_input
	Blocker               string   `json:"blocker,omitempty"`
	Options               []string `json:"options,omitempty"`
	CanProceedWithDefault bool     `json:"can_proceed_with_default,omitempty"`
	DefaultChoice         string   `json:"default_choice,omitempty"`

	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Decision is one entry of a report's decisions.
type Decision struct {
	Decision  string `json:"decision"`
	Rationale string `json:"rationale,omitempty"`
}

// HIVE_REPORT statuses.
const (
	ReportComplete   = "complete"
	ReportPartial    = "partial"
	ReportBlocked    = "blocked"
	ReportChallenge  = "challenge"
	ReportNeedsInput = "needs_input"
)
