package roleplan

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/words"
)

// Finding is one problem a reviewing role (reviewer, security, browser
// validator) reported, kept for the run with what became of it.
type Finding struct {
	ID          string `json:"id"` // F1, F2, ... in the order reported
	Job         string `json:"job"`
	Severity    string `json:"severity"` // blocker, high, medium, low
	Category    string `json:"category,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Suggestion  string `json:"suggestion,omitempty"`
	Status      string `json:"status"`           // open, fixing, fixed, accepted, deferred
	Reason      string `json:"reason,omitempty"` // why it was accepted
}

// Severities, most severe first, and what became of a finding.
const (
	SevBlocker = "blocker"
	SevHigh    = "high"
	SevMedium  = "medium"
	SevLow     = "low"

	FindingOpen     = "open"
	FindingFixing   = "fixing" // sent to a fix loop; the reviewer looks again
	FindingFixed    = "fixed"
	FindingAccepted = "accepted"
	FindingDeferred = "deferred"
)

// Answers of a findings checkpoint, beside continue and abort.
const (
	AnswerFix   = "fix"   // a fix loop for the open blockers
	AnswerView  = "view"  // show the findings with their code, and ask again
	AnswerDefer = "defer" // defer [ID]: the open findings that are not blockers
	AnswerQuit  = "quit"  // end the run; the work stays on its branch
	// accept [ID] REASON (AnswerAccept) keeps a blocker, for a recorded
	// reason.
)

// FindingsText lists findings one per line: id, severity, place, title,
// what became of them.
func FindingsText(fs []Finding) string {
	var lines []string
	for _, f := range fs {
		place := f.File
		if f.Line > 0 {
			place = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		line := fmt.Sprintf("%s %s %s: %s (%s)", f.ID, f.Severity, words.First(place, "-"), words.OneLine(f.Title), f.Status)
		if f.Reason != "" {
			line += ": " + words.OneLine(f.Reason)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
