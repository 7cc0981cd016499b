package tracking

import (
	"regexp"
	"strings"
)

// layout is what Roadmap needs to know about a roadmap's milestones before
// it edits a line.
//
// A roadmap lists the phases of every milestone, and a project whose phase
// numbers restart with each milestone has a "Phase 1" and a "01-01" in each.
// hive runs the current milestone, so it must edit only its lines. The rule,
// following how GSD archives a shipped milestone:
//
//   - A line inside <details>…</details> belongs to a shipped milestone (GSD
//     collapses a milestone there when it ships), unless the block is shown
//     open (<details open>) or its <summary> says it is in progress (🚧,
//     "in progress"): some projects wrap the current milestone too.
//   - A line under a milestone heading — a heading that names a version
//     ("v1.0") or says "milestones", other than a phase's own heading — that
//     marks it shipped ("✅ v1.0 MVP (Shipped 2026-01-10)", "## Completed
//     Milestones", "archived") belongs to a shipped milestone, down to the
//     next heading of the same or a higher level.
//   - Lines of shipped milestones, and lines in fenced code blocks, are never
//     edited.
//   - When the remaining candidates for one box lie under several milestone
//     headings (none marked shipped), those under the heading marked in
//     progress win, else those under the last one: roadmaps list milestones
//     oldest first. Candidates under no milestone heading (the "## Phases"
//     list of a roadmap without milestones) always count.
//   - Progress table rows have no heading of their own: a row whose Milestone
//     cell names a version the roadmap marks shipped (in a heading, a
//     <summary> or a "## Milestones" list item) is skipped (see
//     layout.progressRow).
type layout struct {
	// skip marks lines never to edit: code and shipped milestones.
	skip []bool
	// section is the line of the milestone heading a line is under, -1 if none.
	section []int
	// currentHeading marks milestone headings that say they are in progress.
	currentHeading map[int]bool
	// shipped and inProgress are the milestone versions ("v1.0", lower case)
	// the roadmap marks so.
	shipped, inProgress map[string]bool
}

var (
	versionRE = regexp.MustCompile(`(?i)\bv[0-9]+(?:\.[0-9]+)*\b`)
	// shippedRE marks a milestone as shipped: GSD writes "✅" and "SHIPPED";
	// projects also write "completed", "(complete)" and "archived".
	shippedRE = regexp.MustCompile(`(?i)✅|\bshipped\b|\bcompleted\b|\(complete\)|\barchived?\b`)
	// inProgressRE marks the milestone being worked on: GSD writes "🚧" and
	// "(In Progress)".
	inProgressRE   = regexp.MustCompile(`(?i)🚧|🔄|\bin[ -]progress\b|\(current\)|\bcurrent milestone\b|\(active\)`)
	milestoneWord  = regexp.MustCompile(`(?i)\bmilestones?\b`)
	phaseHeadingRE = regexp.MustCompile(`^[*_~]*(?i:phase)\s+[0-9]`)
	listItemRE     = regexp.MustCompile(`^\s*(?:[-*+]|[0-9]+[.)])\s`)
	detailsOpenRE  = regexp.MustCompile(`(?i)<details(?:\s[^>]*)?>|</details\s*>`)
	openAttrRE     = regexp.MustCompile(`(?i)\sopen\b`)
)

func layoutOf(ls []line) *layout {
	n := len(ls)
	lay := &layout{
		skip:           codeLines(ls),
		section:        make([]int, n),
		currentHeading: map[int]bool{},
		shipped:        map[string]bool{},
		inProgress:     map[string]bool{},
	}
	code := append([]bool{}, lay.skip...)

	// <details> blocks, nested or not; one left open runs to the end, as a
	// browser shows it.
	var open []int
	shownOpen := map[int]bool{} // lines opening a <details open>
	closeBlock := func(start, end int) {
		if shownOpen[start] {
			return
		}
		summary := ""
		for k := start; k <= end && k < start+4; k++ {
			if strings.Contains(strings.ToLower(ls[k].text), "<summary") {
				summary = ls[k].text
				break
			}
		}
		if inProgressRE.MatchString(summary) {
			lay.markVersions(summary, lay.inProgress)
			return
		}
		lay.markVersions(summary, lay.shipped)
		for k := start; k <= end; k++ {
			lay.skip[k] = true
		}
	}
	for i, l := range ls {
		if code[i] {
			continue
		}
		for _, tag := range detailsOpenRE.FindAllString(l.text, -1) {
			if strings.HasPrefix(tag, "</") {
				if len(open) > 0 {
					closeBlock(open[len(open)-1], i)
					open = open[:len(open)-1]
				}
				continue
			}
			open = append(open, i)
			shownOpen[i] = shownOpen[i] || openAttrRE.MatchString(tag)
		}
	}
	for len(open) > 0 {
		closeBlock(open[len(open)-1], n-1)
		open = open[:len(open)-1]
	}

	// Milestone headings and the sections under them.
	type mark struct {
		level, line int
		shipped     bool
	}
	var stack []mark
	for i, l := range ls {
		lay.section[i] = -1
		if code[i] {
			continue
		}
		if level, text := heading(l.text); level > 0 {
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			if isMilestoneHeading(text) {
				current := inProgressRE.MatchString(text)
				shipped := !current && shippedRE.MatchString(text)
				stack = append(stack, mark{level, i, shipped})
				lay.currentHeading[i] = current
			}
		}
		for _, m := range stack {
			if m.shipped {
				lay.skip[i] = true
			}
		}
		if len(stack) > 0 {
			lay.section[i] = stack[len(stack)-1].line
		}
		// Which versions the roadmap calls shipped or in progress: headings,
		// and list items other than a phase's or a plan's own line.
		if lvl, text := heading(l.text); (lvl > 0 && isMilestoneHeading(text)) || milestoneItem(l.text) {
			switch {
			case inProgressRE.MatchString(l.text):
				lay.markVersions(l.text, lay.inProgress)
			case shippedRE.MatchString(l.text):
				lay.markVersions(l.text, lay.shipped)
			}
		}
	}
	return lay
}

func isMilestoneHeading(text string) bool {
	if phaseHeadingRE.MatchString(text) {
		return false
	}
	return versionRE.MatchString(text) || (milestoneWord.MatchString(text) && (shippedRE.MatchString(text) || inProgressRE.MatchString(text)))
}

// milestoneItem says whether s is a list item about a milestone
// ("- ✅ **v1.0 MVP** - Phases 1-4 (shipped 2026-01-10)"), not a phase's or
// a plan's line.
func milestoneItem(s string) bool {
	if !listItemRE.MatchString(s) || !versionRE.MatchString(s) {
		return false
	}
	rest := strings.TrimSpace(listItemRE.ReplaceAllString(s, ""))
	if r, ok := checkboxOf(s); ok {
		rest = r
	}
	if _, ok := phaseRef(rest); ok {
		return false
	}
	_, ok := planRef(rest)
	return !ok
}

// markVersions records the first version s names (a line names its own
// milestone first: "✅ v1.1 … (after v1.0)").
func (lay *layout) markVersions(s string, set map[string]bool) {
	if v := versionRE.FindString(s); v != "" {
		set[strings.ToLower(v)] = true
	}
}

// current picks, among the lines that could be one box, those of the current
// milestone (see layout).
func (lay *layout) current(cands []int) []int {
	sections := map[int]bool{}
	last, inProgress := -1, false
	for _, i := range cands {
		if s := lay.section[i]; s >= 0 {
			sections[s] = true
			last = max(last, s)
			inProgress = inProgress || lay.currentHeading[s]
		}
	}
	if len(sections) <= 1 {
		return cands
	}
	var out []int
	for _, i := range cands {
		s := lay.section[i]
		if s < 0 || (inProgress && lay.currentHeading[s]) || (!inProgress && s == last) {
			out = append(out, i)
		}
	}
	return out
}
