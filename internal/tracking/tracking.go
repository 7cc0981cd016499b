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
	// Project is the whole project's progress, this phase's plans as Plans
	// has them: GSD's progress keys in STATE.md (total_plans,
	// completed_plans, percent) and its Progress bar are the milestone's,
	// not the phase's. Zero: the phase's own are all hive knows.
	Project Progress
}

// Progress counts the plans and phases of a project, as GSD does: a plan
// is done when its SUMMARY passed, a phase when every plan of it is.
type Progress struct {
	Plans, DonePlans   int
	Phases, DonePhases int
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

// plans is the plan count and the done ones of STATE.md's progress keys:
// the project's, else the phase's.
func (p Phase) plans() (total, done int) {
	if p.Project.Plans > 0 {
		return p.Project.Plans, p.Project.DonePlans
	}
	return len(p.Plans), p.done()
}

// percent is how far the project is, as GSD computes it: the lesser of
// its plans' and its phases' shares, so that phases not yet planned keep
// it below 100.
func (p Phase) percent() int {
	total, done := p.plans()
	if total == 0 {
		return 0
	}
	pct := done * 100 / total
	if pr := p.Project; pr.Phases > 0 {
		pct = min(pct, pr.DonePhases*100/pr.Phases)
	}
	return pct
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
