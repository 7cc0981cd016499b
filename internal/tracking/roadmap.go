package tracking

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Roadmap rewrites ROADMAP.md: it ticks the checkboxes of the phase's done
// plans and, once the phase is Complete, the phase's own checkbox, and it
// updates the Plans Complete, Status and Completed cells of the phase's row
// of the progress table. Only lines of the current milestone are touched (see
// layoutOf). A roadmap that lacks these lines is left as it is: hive does not
// invent a roadmap. hive never unticks a box: a ticked box it does not count
// as done is a human's note or history, not something a run can undo.
func Roadmap(old string, p Phase) string {
	ls := splitLines(old)
	lay := layoutOf(ls)

	done := map[string]bool{}
	for _, pl := range p.Plans {
		if pl.Done {
			done[planKey(pl.ID)] = true
		}
	}
	planBoxes := map[string][]int{} // plan key → checkbox lines, in file order
	var keys []string
	var phaseBoxes []int
	for i, l := range ls {
		if lay.skip[i] {
			continue
		}
		rest, ok := checkboxOf(l.text)
		if !ok {
			continue
		}
		if id, ok := planRef(rest); ok {
			if k := planKey(id); done[k] {
				if _, seen := planBoxes[k]; !seen {
					keys = append(keys, k)
				}
				planBoxes[k] = append(planBoxes[k], i)
			}
			continue
		}
		if n, ok := phaseRef(rest); ok && p.Complete && samePhase(n, p.Number) {
			phaseBoxes = append(phaseBoxes, i)
		}
	}
	for _, k := range keys {
		for _, i := range lay.current(planBoxes[k]) {
			ls[i].text = tick(ls[i].text)
		}
	}
	for _, i := range lay.current(phaseBoxes) {
		ls[i].text = tick(ls[i].text)
	}

	if r, ok := lay.progressRow(ls, p.Number); ok {
		ls[r.line].text = editCells(ls[r.line].text, progressEdits(ls[r.line].text, r, p))
	}
	return joinLines(ls)
}

var checkboxRE = regexp.MustCompile(`^(\s*(?:[-*+]|\d+[.)])\s+\[)([ xX])\]\s*(.*)$`)

// checkboxOf reads a task-list line ("- [ ] text", "- [x] text"): the text
// after the box.
func checkboxOf(s string) (rest string, ok bool) {
	m := checkboxRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[3], true
}

// tick ticks a task-list line's box; a ticked box ("x" or "X") is kept.
func tick(s string) string {
	m := checkboxRE.FindStringSubmatchIndex(s)
	if m == nil || s[m[4]:m[5]] != " " {
		return s
	}
	return s[:m[4]] + "x" + s[m[5]:]
}

var (
	// A plan as GSD lists it under a phase: "01-02-PLAN.md — …",
	// "01-02: …", "**01-02**: …", "Plan 01-02 …", "`01-02-PLAN.md`".
	planRefRE = regexp.MustCompile("^[*_`~]*(?:(?i:plan)\\s+)?[*_`]*([0-9]+(?:\\.[0-9]+)*-[0-9]+)(?:-PLAN\\.md)?(.*)$")
	// A phase's own line: "**Phase 2: Reading Lists** - …", "Phase 02.1: …".
	phaseRefRE = regexp.MustCompile("^[*_`~]*(?i:phase)\\s+([0-9]+(?:\\.[0-9]+)*)(.*)$")
)

func planRef(s string) (string, bool) {
	m := planRefRE.FindStringSubmatch(s)
	if m == nil || !endsRef(m[2]) {
		return "", false
	}
	return m[1], true
}

func phaseRef(s string) (string, bool) {
	m := phaseRefRE.FindStringSubmatch(s)
	if m == nil || !endsRef(m[2]) {
		return "", false
	}
	return m[1], true
}

// endsRef says whether rest, the text after a phase or plan number, ends the
// number there: "01-02-extra" or "1-7" (a range of phases) name no single
// plan or phase.
func endsRef(rest string) bool {
	r, size := utf8.DecodeRuneInString(rest)
	switch {
	case rest == "":
		return true
	case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
		return false
	case r == '-' || r == '–' || r == '—':
		next, _ := utf8.DecodeRuneInString(rest[size:])
		return !unicode.IsDigit(next)
	}
	return true
}

// phaseNum is a phase number without the zeros GSD pads it with:
// "01" → "1", "02.1" → "2.1", "007" → "7".
func phaseNum(s string) string {
	s = strings.TrimLeft(s, "0")
	if s == "" || strings.HasPrefix(s, ".") {
		s = "0" + s
	}
	return s
}

func samePhase(a, b string) bool { return phaseNum(a) == phaseNum(b) }

// planKey is a plan id as written anywhere ("01-02", "1-2") in one form.
func planKey(id string) string {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return id
	}
	return phaseNum(id[:i]) + "-" + phaseNum(id[i+1:])
}

// progressRow is the phase's row of a progress table.
type progressRow struct {
	line int
	cols columns
	// cells of the row, as many as the table's header has
	cells []cell
	// widths of the table's columns, as its delimiter row draws them
	widths []int
}

// columns are the indexes of the progress table's columns hive reads or
// writes, found by their header; -1 where the table has no such column.
type columns struct {
	phase, milestone, plans, status, completed int
}

// columnsOf finds the progress table's columns by name, whatever their order
// and whatever other columns the table has. The names are GSD's ("Phase |
// Milestone | Plans Complete | Status | Completed") and the variants projects
// write ("Plans", "Plans Done", "Progress", "State", "Date", "Completed On").
// A table whose first column is not a phase, or that has neither a plans nor a
// status column, is not a progress table (ok false): requirement-coverage
// tables have a Phase and a Status column too, but not first.
func columnsOf(s string, cells []cell) (columns, bool) {
	c := columns{-1, -1, -1, -1, -1}
	for i, ce := range cells {
		h := headerName(s[ce.start:ce.end])
		switch {
		case strings.HasPrefix(h, "phase"):
			if c.phase < 0 {
				c.phase = i
			}
		case strings.Contains(h, "milestone") || h == "version" || h == "release":
			c.milestone = i
		case strings.HasPrefix(h, "plan") || h == "progress":
			c.plans = i
		case h == "status" || h == "state":
			c.status = i
		case strings.HasPrefix(h, "complet") || strings.Contains(h, "date") || h == "done" || h == "finished":
			c.completed = i
		}
	}
	return c, c.phase == 0 && (c.plans >= 0 || c.status >= 0)
}

// headerName is a header cell in lower case without markup: "**Plans
// Complete**" → "plans complete".
func headerName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

var rowPhaseRE = regexp.MustCompile(`^(?i:phase\s+)?([0-9]+(?:\.[0-9]+)*)(.*)$`)

// rowPhase reads the phase number of a progress row's first cell, however
// it is written: "1. Core", "01. Core", "Phase 1", "2.1. Fix", "**3** Search".
// A range ("1-7 (v1.0)") is no phase.
func rowPhase(s string) (string, bool) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_~`"))
	m := rowPhaseRE.FindStringSubmatch(s)
	if m == nil || !endsRef(strings.TrimLeft(m[2], "*_~`")) {
		return "", false
	}
	return m[1], true
}

// progressRow finds the phase's row among the progress tables outside
// archived milestones. A row with another number of cells than its header is
// left alone: hive would have to guess which cell is which. When rows of
// several milestones carry the number (a project whose numbering restarts),
// a row whose Milestone cell names a shipped milestone is not the phase's,
// a row of the milestone in progress is, and otherwise the last one is, as
// roadmaps list milestones oldest first.
func (lay *layout) progressRow(ls []line, num string) (progressRow, bool) {
	var rows []progressRow
	for i := 0; i+1 < len(ls); i++ {
		if lay.skip[i] {
			continue
		}
		head := tableCells(ls[i].text)
		if len(head) == 0 || !delimiterRow(ls[i+1].text, tableCells(ls[i+1].text)) || len(tableCells(ls[i+1].text)) != len(head) {
			continue
		}
		cols, ok := columnsOf(ls[i].text, head)
		var widths []int
		for _, c := range tableCells(ls[i+1].text) {
			widths = append(widths, utf8.RuneCountInString(ls[i+1].text[c.start:c.end]))
		}
		j := i + 2
		for ; j < len(ls); j++ {
			cells := tableCells(ls[j].text)
			if cells == nil || strings.TrimSpace(ls[j].text) == "" {
				break
			}
			if !ok || lay.skip[j] || len(cells) != len(head) {
				continue
			}
			if n, isPhase := rowPhase(ls[j].text[cells[cols.phase].start:cells[cols.phase].end]); isPhase && samePhase(n, num) {
				rows = append(rows, progressRow{line: j, cols: cols, cells: cells, widths: widths})
			}
		}
		i = j - 1
	}
	version := func(r progressRow) string {
		if r.cols.milestone < 0 {
			return ""
		}
		c := r.cells[r.cols.milestone]
		return strings.ToLower(versionRE.FindString(ls[r.line].text[c.start:c.end]))
	}
	var open, current []progressRow
	for _, r := range rows {
		v := version(r)
		if lay.shipped[v] && !lay.inProgress[v] {
			continue
		}
		open = append(open, r)
		if lay.inProgress[v] {
			current = append(current, r)
		}
	}
	if len(current) > 0 {
		open = current
	}
	if len(open) == 0 {
		return progressRow{}, false
	}
	return open[len(open)-1], true
}

// progressEdits are the new contents of the row's plans, status and
// completed cells; a cell whose value stays the same keeps its bytes.
func progressEdits(s string, r progressRow, p Phase) []cellEdit {
	var edits []cellEdit
	edit := func(col int, text string) {
		edits = append(edits, cellEdit{r.cells[col], text, r.widths[col]})
	}
	text := func(col int) string {
		return strings.TrimSpace(s[r.cells[col].start:r.cells[col].end])
	}
	if col := r.cols.plans; col >= 0 && len(p.Plans) > 0 {
		if v := fmt.Sprintf("%d/%d", p.done(), len(p.Plans)); text(col) != v {
			edit(col, v)
		}
	}
	status := "In progress"
	switch {
	case p.Complete:
		status = "Complete"
	case p.done() == 0:
		status = "Not started"
	}
	if col := r.cols.status; col >= 0 && headerName(text(col)) != headerName(status) {
		// "✓ Complete" and "In Progress" say what hive would: kept.
		edit(col, status)
	}
	if col := r.cols.completed; col >= 0 {
		old := text(col)
		switch {
		case !p.Complete:
			if !noDate(old) {
				edit(col, "-")
			}
		case p.Now.IsZero():
			// hive does not know when: the file keeps what it says.
		case !dateRE.MatchString(old):
			// A date already there is the day the phase first completed.
			edit(col, p.Now.UTC().Format(time.DateOnly))
		}
	}
	return edits
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// noDate says whether a Completed cell says "not yet": empty or a dash.
func noDate(s string) bool {
	switch strings.TrimSpace(s) {
	case "", "-", "–", "—", "--", "n/a", "N/A", "TBD":
		return true
	}
	return false
}

// TickedPlans reads which plans ROADMAP.md ticks as done in its current
// milestone (see layoutOf): each plan's key (PlanKey) with the 1-based
// line of its ticked box. A plan hive would run although the
// roadmap calls it done (its SUMMARY was lost) is worth a word first.
func TickedPlans(roadmap string) map[string]int {
	ls := splitLines(roadmap)
	lay := layoutOf(ls)
	boxes := map[string][]int{}
	for i, l := range ls {
		if lay.skip[i] {
			continue
		}
		m := checkboxRE.FindStringSubmatch(l.text)
		if m == nil || m[2] == " " {
			continue
		}
		if id, ok := planRef(m[3]); ok {
			k := planKey(id)
			boxes[k] = append(boxes[k], i)
		}
	}
	out := map[string]int{}
	for k, lines := range boxes {
		if cur := lay.current(lines); len(cur) > 0 {
			out[k] = cur[0] + 1
		}
	}
	return out
}

// PlanKey is a plan id without the zeros GSD pads its numbers with, as
// TickedPlans compares them: "01-02" and "1-2" are one plan.
func PlanKey(id string) string { return planKey(id) }
