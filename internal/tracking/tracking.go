package tracking

import (
	"fmt"
	"strings"
	"time"
)

// Phase is where a phase stands, as the documents show it.
type Phase struct {
	Number string // "01", "02.1"
	Name   string // "Core Library"
	Plans  []Plan // in plan order
	// Status is a short status: "Executing", "Verifying", "Complete", ...
	Status string
	// Activity is the last thing that happened ("Completed 01-02-PLAN.md").
	Activity string
	// Complete says the phase passed verification (or has none): ROADMAP.md
	// ticks it.
	Complete bool
	// Now dates the change. A zero Now means hive does not know when: no date
	// is written and the dates the files hold are kept.
	Now time.Time
}

// Plan is one plan of the phase.
type Plan struct {
	ID   string
	Done bool
}

func (p Phase) done() int {
	n := 0
	for _, pl := range p.Plans {
		if pl.Done {
			n++
		}
	}
	return n
}

func (p Phase) percent() int {
	if len(p.Plans) == 0 {
		return 0
	}
	return p.done() * 100 / len(p.Plans)
}

// date is the day of Now as the documents print it, "" for a zero Now.
func (p Phase) date() string {
	if p.Now.IsZero() {
		return ""
	}
	return p.Now.UTC().Format(time.DateOnly)
}

// Bar renders a ten-cell progress bar: [████░░░░░░] 40%.
func Bar(percent int) string {
	full := max(0, min(10, percent/10))
	return fmt.Sprintf("[%s%s] %d%%", strings.Repeat("█", full), strings.Repeat("░", 10-full), percent)
}
