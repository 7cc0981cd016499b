// Package tracking keeps the planning documents only hive may write,
// .planning/STATE.md and .planning/ROADMAP.md, in step with a run. The
// functions are pure text transforms: they rewrite the lines GSD tools read
// (STATE.md's frontmatter and "Current Position", ROADMAP.md's plan
// checkboxes, phase checkbox and progress table) and leave every other line
// as the user wrote it.
package tracking

import (
	"fmt"
	"regexp"
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
	Now      time.Time
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

// phaseInt is the phase number as GSD documents print it ("01" → "1").
func (p Phase) phaseInt() string {
	n := strings.TrimLeft(p.Number, "0")
	if n == "" || strings.HasPrefix(n, ".") {
		n = "0" + n
	}
	return n
}

// Bar renders a ten-cell progress bar: [████░░░░░░] 40%.
func Bar(percent int) string {
	full := max(0, min(10, percent/10))
	return fmt.Sprintf("[%s%s] %d%%", strings.Repeat("█", full), strings.Repeat("░", 10-full), percent)
}

var (
	positionLine = regexp.MustCompile(`^(Phase|Plan|Status|Last activity|Progress|Stopped at|Last session):`)
)

// State rewrites STATE.md (old may be empty: a minimal one is made).
func State(old string, p Phase) string {
	body := stripFrontmatter(old)
	if strings.TrimSpace(body) == "" {
		body = "# Project State\n\n## Current Position\n\n## Session Continuity\n"
	}
	lines := strings.Split(body, "\n")
	phase := fmt.Sprintf("%s (%s)", p.phaseInt(), p.Name)
	if n := phaseCount(lines); n != "" {
		phase = fmt.Sprintf("%s of %s (%s)", p.phaseInt(), n, p.Name)
	}
	values := map[string]string{
		"Phase":         phase,
		"Plan":          fmt.Sprintf("%d of %d in current phase", p.done(), len(p.Plans)),
		"Status":        p.Status,
		"Last activity": fmt.Sprintf("%s — %s", p.Now.UTC().Format("2006-01-02"), p.Activity),
		"Progress":      Bar(p.percent()),
		"Stopped at":    p.Activity,
		"Last session":  p.Now.UTC().Format("2006-01-02"),
	}
	seen := map[string]bool{}
	for i, l := range lines {
		m := positionLine.FindStringSubmatch(l)
		if m == nil || seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		lines[i] = m[1] + ": " + values[m[1]]
	}
	// Lines GSD expects that the file lacks go under "## Current Position".
	var missing []string
	for _, k := range []string{"Phase", "Plan", "Status", "Last activity"} {
		if !seen[k] {
			missing = append(missing, k+": "+values[k])
		}
	}
	if !seen["Progress"] {
		missing = append(missing, "", "Progress: "+values["Progress"])
	}
	if len(missing) > 0 {
		lines = insertAfterHeading(lines, "## Current Position", missing)
	}
	return frontmatter(p) + strings.Join(lines, "\n")
}

func frontmatter(p Phase) string {
	status := "executing"
	if p.Complete {
		status = "phase_complete"
	}
	return fmt.Sprintf(`---
gsd_state_version: 1.0
status: %s
current_phase: %q
stopped_at: %q
last_updated: %q
progress:
  total_plans: %d
  completed_plans: %d
  percent: %d
---
`, status, p.Number, p.Activity, p.Now.UTC().Format(time.RFC3339), len(p.Plans), p.done(), p.percent())
}

func stripFrontmatter(s string) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	if end := strings.Index(s[4:], "\n---\n"); end >= 0 {
		return s[4+end+5:]
	}
	return s
}

var phaseOfRE = regexp.MustCompile(`^Phase:\s*\S+\s+of\s+(\S+)`)

// phaseCount keeps the phase count the file already states ("1 of 2").
func phaseCount(lines []string) string {
	for _, l := range lines {
		if m := phaseOfRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

func insertAfterHeading(lines []string, heading string, add []string) []string {
	for i, l := range lines {
		if strings.TrimSpace(l) == heading {
			at := i + 1
			if at < len(lines) && strings.TrimSpace(lines[at]) == "" {
				at++
			}
			out := append([]string{}, lines[:at]...)
			out = append(out, add...)
			return append(out, lines[at:]...)
		}
	}
	out := append(lines, "", heading, "")
	return append(out, add...)
}

// Roadmap rewrites ROADMAP.md: the phase's plan checkboxes, its progress
// row and, once Complete, its phase checkbox. A roadmap that lacks them is
// left as it is (hive does not invent a roadmap).
func Roadmap(old string, p Phase) string {
	lines := strings.Split(old, "\n")
	done := map[string]bool{}
	for _, pl := range p.Plans {
		done[pl.ID] = pl.Done
	}
	num := p.phaseInt()
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " \t")
		indent := l[:len(l)-len(trimmed)]
		switch {
		case strings.HasPrefix(trimmed, "- [ ] ") || strings.HasPrefix(trimmed, "- [x] "):
			rest := trimmed[6:]
			if id, ok := planRef(rest); ok {
				if d, known := done[id]; known {
					lines[i] = indent + checkbox(d) + rest
				}
				continue
			}
			if n, ok := phaseRef(rest); ok && samePhase(n, num) && p.Complete {
				lines[i] = indent + checkbox(true) + rest
			}
		case strings.HasPrefix(trimmed, "|"):
			lines[i] = progressRow(l, p)
		}
	}
	return strings.Join(lines, "\n")
}

func checkbox(done bool) string {
	if done {
		return "- [x] "
	}
	return "- [ ] "
}

var (
	planRefRE  = regexp.MustCompile(`^([0-9][0-9.]*-[0-9][0-9.]*)-PLAN\.md\b`)
	phaseRefRE = regexp.MustCompile(`^\*\*Phase\s+([0-9.]+)\b`)
	rowPhaseRE = regexp.MustCompile(`^\|\s*([0-9.]+)\.\s`)
)

func planRef(s string) (string, bool) {
	m := planRefRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func phaseRef(s string) (string, bool) {
	m := phaseRefRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func samePhase(a, b string) bool {
	trim := func(s string) string {
		s = strings.TrimLeft(s, "0")
		if s == "" || strings.HasPrefix(s, ".") {
			s = "0" + s
		}
		return s
	}
	return trim(a) == trim(b)
}

// progressRow rewrites the phase's row of the progress table:
// | 1. Core Library | 3/6 | In progress | - |
func progressRow(l string, p Phase) string {
	m := rowPhaseRE.FindStringSubmatch(l)
	if m == nil || !samePhase(m[1], p.phaseInt()) {
		return l
	}
	cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
	if len(cells) < 3 {
		return l
	}
	status, completed := "In progress", "-"
	switch {
	case p.Complete:
		status, completed = "Complete", p.Now.UTC().Format("2006-01-02")
	case p.done() == 0:
		status = "Not started"
	}
	cells[1] = fmt.Sprintf(" %d/%d ", p.done(), len(p.Plans))
	cells[2] = " " + status + " "
	if len(cells) > 3 {
		cells[3] = " " + completed + " "
	}
	return "|" + strings.Join(cells, "|") + "|"
}
