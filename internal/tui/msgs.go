package tui

import (
	"time"

	"github.com/hivectl/hive/internal/phase"
)

// SnapshotMsg carries the engine's state after an event; the dashboard
// shows the latest one.
type SnapshotMsg struct{ Snap phase.Snapshot }

// StartedMsg says when the run started, for the elapsed time.
type StartedMsg struct{ Time time.Time }

// LogMsg is one line for the log pane.
type LogMsg LogLine

// TickMsg is the clock: View never reads time.Now, so screens are golden.
type TickMsg time.Time

// FinishedMsg says the run is over (the runner returned): the dashboard
// quits so the terminal gets the final report.
type FinishedMsg struct{}

// BellMsg rings the terminal bell through the program, so the bell never
// lands in the middle of an escape sequence the renderer is writing.
type BellMsg struct{}

// batchMsg is what an Observer forwards: several messages at once.
type batchMsg []any

// answerSentMsg reports that the runner took an answer.
type answerSentMsg struct {
	id   int
	text string
}

// LogLine is one line of the log pane.
type LogLine struct {
	Time time.Time
	Plan string // "" for hive itself
	Text string
}
