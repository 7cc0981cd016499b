package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/engine"
)

// View implements tea.Model: the whole screen, in the alternate screen so
// that a resize redraws it from scratch.
func (m Model) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	v.WindowTitle = "hive " + m.snap.Phase
	return v
}

// Screen is the dashboard as text (with ANSI styles), exactly the width and
// at most the height of the window. It reads only the model.
func (m Model) Screen() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	if !m.hasSnap {
		return "hive: waiting for the run to start…"
	}
	header := []string{m.header(w)}
	footer := m.footer(w)
	rows := m.planRows(w, false)
	if head := m.head(); head != nil && len(rows)+m.checkpointNeed(*head, w)+len(header)+len(footer)+1 > h {
		rows = m.planRows(w, true)
	}
	plans := []string{rule("Phase "+m.snap.Phase, w)}
	for _, r := range rows {
		plans = append(plans, r.line)
	}
	rest := h - len(header) - len(footer) - len(plans)

	// The open checkpoint comes first: it is what the human is needed for.
	var cp []string
	if head := m.head(); head != nil {
		cp = m.checkpointPane(*head, w, rest)
		rest -= len(cp)
	}
	// Then each running plan's last PROGRESS line, when the table had no
	// room for it, keeping three lines for the log.
	if w < wideWidth {
		var out []string
		for _, r := range rows {
			out = append(out, r.line)
			if r.detail != "" && rest > 3 {
				out = append(out, r.detail)
				rest--
			}
		}
		plans = append(plans[:1], out...)
	}
	var tail []string
	switch {
	case m.showHelp:
		tail = m.fullHelp(w)
	case rest >= 2:
		tail = m.logPane(w, rest)
	}
	lines := append(append(append(append(header, plans...), cp...), tail...), footer...)
	if len(lines) > h {
		lines = append(lines[:h-len(footer)], footer...)
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Truncate(l, w, "…"), " ")
	}
	return strings.Join(lines, "\n")
}

// wideWidth is where the plan table gets a column for dependencies and
// the last PROGRESS line.
const wideWidth = 120

func (m Model) header(w int) string {
	s := m.snap
	var in, out int64
	var usd float64
	for _, p := range s.Plans {
		in += p.InputTokens
		out += p.OutputTokens
		usd += p.CostUSD
	}
	state := "running"
	switch {
	case s.Finished:
		state = "finished: " + s.Outcome
	case s.Aborted:
		state = "aborting"
	case len(s.Queue) > 0:
		state = fmt.Sprintf("%d waiting for you", len(s.Queue))
	}
	parts := []string{stTitle.Render("hive") + " " + stBold.Render(m.opts.Title), stBold.Render(state)}
	if s.CurrentWave > 0 && !s.Finished {
		parts = append(parts, fmt.Sprintf("wave %d", s.CurrentWave))
	}
	if !m.started.IsZero() {
		end := m.now
		if s.Finished { // the clock stops with the last plan
			end = m.started
			for _, p := range s.Plans {
				if p.Finished.After(end) {
					end = p.Finished
				}
			}
		}
		parts = append(parts, clock(end.Sub(m.started)))
	}
	parts = append(parts,
		fmt.Sprintf("%d/%d done", s.Count(engine.Complete), len(s.Plans)),
		fmt.Sprintf("%s tok", tokens(in+out)),
		cost(usd))
	return strings.Join(parts, stFaint.Render(" · "))
}

type planRow struct{ line, detail string }

// planRows is the phase as waves: a heading per wave naming what it waits
// for, and a row per plan.
func (m Model) planRows(w int, tight bool) []planRow {
	s := m.snap
	idW, nameW := 5, 0
	for _, p := range s.Plans {
		idW = max(idW, len(p.Spec.ID))
		nameW = max(nameW, lipgloss.Width(p.Spec.Name))
	}
	// icon id name state bar tasks time tokens cost
	fixed := 2 + 2 + idW + 1 + 1 + 9 + 11 + 6 + 7 + 8 + 7
	wide := w >= wideWidth
	depsW := 0
	if wide {
		depsW = 22
		fixed += depsW
	}
	nameW = max(8, min(nameW, w-fixed))
	if wide {
		nameW = min(nameW, 30)
	}
	progW := w - fixed - nameW - 1
	var rows []planRow
	wave := -1
	for _, p := range s.Plans {
		if p.Spec.Wave != wave {
			wave = p.Spec.Wave
			if tight {
				if ids := m.completeWave(wave); ids != "" {
					rows = append(rows, planRow{line: m.waveHeading(wave) + " " + stateLook[engine.Complete].style.Render("✓ "+ids)})
				}
			}
			rows = append(rows, planRow{line: m.waveHeading(wave)})
		}
		if tight && m.completeWave(wave) != "" {
			if rows[len(rows)-1].line == m.waveHeading(wave) {
				rows = rows[:len(rows)-1]
			}
			continue
		}
		look := stateLook[p.State]
		var b strings.Builder
		b.WriteString("  " + look.style.Render(look.icon) + " ")
		b.WriteString(pad(stBold.Render(p.Spec.ID), idW) + " ")
		b.WriteString(pad(ansi.Truncate(p.Spec.Name, nameW, "…"), nameW) + " ")
		b.WriteString(pad(look.style.Render(stateLabel(p.State)), 9))
		b.WriteString(bar(p.TasksDone, p.Spec.Tasks, 10, p.State) + " ")
		b.WriteString(padLeft(fmt.Sprintf("%d/%d", done(p), p.Spec.Tasks), 5) + " ")
		b.WriteString(padLeft(m.planClock(p), 6) + " ")
		if p.Attempt > 0 || p.CostUSD > 0 {
			b.WriteString(padLeft(tokens(p.InputTokens+p.OutputTokens), 7) + " ")
			b.WriteString(padLeft(cost(p.CostUSD), 7))
		} else {
			b.WriteString(strings.Repeat(" ", 15))
		}
		detail := planDetail(p)
		if wide {
			deps := ""
			if len(p.Spec.DependsOn) > 0 {
				deps = "← " + strings.Join(p.Spec.DependsOn, " ")
			}
			b.WriteString("  " + pad(stFaint.Render(ansi.Truncate(deps, depsW-1, "…")), depsW-1))
			if progW > 5 && detail != "" {
				b.WriteString(" " + ansi.Truncate(detail, progW, "…"))
			}
			detail = ""
		}
		r := planRow{line: b.String()}
		if detail != "" {
			r.detail = "      " + stFaint.Render("└ ") + detail
		}
		rows = append(rows, r)
	}
	return rows
}

// completeWave lists a wave's plans when all are complete: a tight screen
// shows such a wave on one line.
func (m Model) completeWave(wave int) string {
	var ids []string
	for _, p := range m.snap.Plans {
		if p.Spec.Wave == wave {
			if p.State != engine.Complete {
				return ""
			}
			ids = append(ids, p.Spec.ID)
		}
	}
	return strings.Join(ids, " ")
}

// checkpointNeed is how many lines the open checkpoint takes unscrolled.
func (m Model) checkpointNeed(cp engine.Checkpoint, w int) int {
	return len(m.checkpointPane(cp, w, 1000)) - 3
}

func done(p *engine.PlanStatus) int {
	if p.State == engine.Complete {
		return p.Spec.Tasks
	}
	return p.TasksDone
}

// planDetail is the plan's last PROGRESS line, or why it stopped.
func planDetail(p *engine.PlanStatus) string {
	switch p.State {
	case engine.Failed, engine.Skipped:
		return stateLook[p.State].style.Render(oneLine(p.Reason))
	case engine.Waiting:
		if p.Open != nil {
			return stAction.Render("checkpoint: " + Title(*p.Open))
		}
	case engine.Running:
		switch p.Stage {
		case engine.StageMerge:
			return "merging into the integration branch"
		case engine.StageResolve:
			return "a resolver agent works on a merge conflict"
		case engine.StageGate:
			return "post-merge gate running"
		}
		if p.Progress != "" {
			return fmt.Sprintf("PROGRESS %d/%d: %s", p.TasksDone, p.Spec.Tasks, oneLine(p.Progress))
		}
		if p.Attempt > 1 {
			return fmt.Sprintf("attempt %d", p.Attempt)
		}
	}
	return ""
}

// waveHeading names a wave and the plans of earlier waves it waits for.
func (m Model) waveHeading(wave int) string {
	in := map[string]bool{}
	for _, p := range m.snap.Plans {
		if p.Spec.Wave == wave {
			in[p.Spec.ID] = true
		}
	}
	var needs []string
	seen := map[string]bool{}
	for _, p := range m.snap.Plans {
		if p.Spec.Wave != wave {
			continue
		}
		for _, d := range p.Spec.DependsOn {
			if !in[d] && !seen[d] {
				seen[d] = true
				needs = append(needs, d)
			}
		}
	}
	h := stBold.Render(fmt.Sprintf("Wave %d", wave))
	if wave == m.snap.CurrentWave && !m.snap.Finished {
		h += stAction.Render(" ◀ now")
	}
	if len(needs) > 0 {
		h += stFaint.Render(" · after " + strings.Join(needs, ", "))
	}
	return " " + h
}

func (m Model) planClock(p *engine.PlanStatus) string {
	if p.Started.IsZero() {
		return ""
	}
	end := m.now
	if p.State.Final() && !p.Finished.IsZero() {
		end = p.Finished
	}
	return clock(end.Sub(p.Started))
}

// checkpointPane is the queue in seed 000's format with the input to
// answer it, in at most room lines (the body scrolls).
func (m Model) checkpointPane(cp engine.Checkpoint, w, room int) []string {
	q := m.snap.Queue
	text := strings.TrimRight(headText(cp, m.snap.Plans, len(q)), "\n")
	all := strings.Split(text, "\n")
	title, action, body := all[0], all[len(all)-1], all[1:len(all)-1]
	var wrapped []string
	for _, l := range body {
		for _, wl := range strings.Split(ansi.Wrap(l, max(10, w-2), " "), "\n") {
			wrapped = append(wrapped, markdownLine(wl))
		}
	}
	for len(wrapped) > 0 && wrapped[0] == "" {
		wrapped = wrapped[1:]
	}
	top := []string{rule(fmt.Sprintf("Checkpoint Queue (%d pending)", len(q)), w), stAction.Render(title)}
	bottom := append([]string{stAction.Render(ansi.Wrap(action, w, " "))}, m.answerLines(cp, w)...)
	for i, o := range q[1:] {
		if i == 2 && len(q) > 4 {
			bottom = append(bottom, stFaint.Render(fmt.Sprintf("… and %d more", len(q)-3)))
			break
		}
		bottom = append(bottom, stFaint.Render(fmt.Sprintf("### %d of %d: Plan %s — %s (waiting its turn)", i+2, len(q), o.Plan, Title(o))))
	}
	bottom = strings.Split(strings.Join(bottom, "\n"), "\n")
	// Keep a few lines for the log when there is room to spare.
	space := room - len(top) - len(bottom) - 3
	if len(wrapped) <= space {
		return append(append(top, wrapped...), bottom...)
	}
	space += 3 // no room to spare: the checkpoint matters more than the log
	space = max(1, space)
	first := min(m.scroll, max(0, len(wrapped)-space+1))
	shown := wrapped[first:min(len(wrapped), first+space-1)]
	more := stFaint.Render(fmt.Sprintf("  ↕ lines %d-%d of %d · pgup/pgdn", first+1, first+len(shown), len(wrapped)))
	return append(append(append(top, shown...), more), bottom...)
}

// markdownLine renders the seed format's **Label:** and ### headings.
func markdownLine(l string) string {
	if strings.HasPrefix(l, "### ") {
		return stBold.Render(l)
	}
	if strings.HasPrefix(l, "**") {
		if i := strings.Index(l[2:], "**"); i >= 0 {
			return stBold.Render(l[2:2+i]) + l[4+i:]
		}
	}
	return l
}

// answerLines is the input for the open checkpoint: a decision's options to
// pick from, or a line to type in.
func (m Model) answerLines(cp engine.Checkpoint, w int) []string {
	if m.opts.Answers == nil {
		return []string{stFaint.Render(fmt.Sprintf("answer from a terminal: hive answer %s \"<response>\"", cp.Plan))}
	}
	var out []string
	if sent, ok := m.sent[cp.ID]; ok {
		out = append(out, stSent.Render(fmt.Sprintf("→ %q sent to executor-%s; waiting for hive to apply it", sent, cp.Plan)))
	}
	if selectOnly(cp) {
		var opts []string
		for i, o := range cp.Options {
			label := fmt.Sprintf(" %d %s ", i+1, o)
			if i == m.choice {
				opts = append(opts, stChosen.Render("["+strings.TrimSpace(label)+"]"))
			} else {
				opts = append(opts, label)
			}
		}
		line := "  " + strings.Join(opts, "  ")
		if lipgloss.Width(line) <= w {
			return append(out, line)
		}
		for _, o := range opts {
			out = append(out, "  "+o)
		}
		return out
	}
	in := m.input.text()
	shown := stBold.Render("> ") + in + stChosen.Render(" ")
	if in == "" {
		shown = stBold.Render("> ") + stChosen.Render(" ") + stFaint.Render(m.input.placeholder)
	} else if s := m.input.suggestion(); s != "" {
		shown += stFaint.Render(s[len(in):] + "  (tab)")
	}
	// Keep the end of a long answer in view, where the typing is.
	if lipgloss.Width(shown) > w {
		shown = ansi.TruncateLeft(shown, lipgloss.Width(shown)-w+1, "…")
	}
	return append(out, shown)
}

func (m Model) logPane(w, room int) []string {
	out := []string{rule("Log", w)}
	n := room - 1
	start := max(0, len(m.logs)-n)
	for _, l := range m.logs[start:] {
		who := l.Plan
		if who == "" {
			who = "hive"
		}
		out = append(out, stFaint.Render(l.Time.Local().Format("15:04:05"))+" "+pad(stBold.Render(who), 6)+" "+oneLine(l.Text))
	}
	return out
}

func (m Model) bindings() []keyBinding {
	ks := m.keys
	head := m.head()
	var b []keyBinding
	if head != nil && m.opts.Answers != nil {
		if selectOnly(*head) {
			b = append(b, ks.Prev, ks.Pick, ks.Send)
		} else {
			b = append(b, ks.Send, ks.Complete, ks.Clear)
		}
		b = append(b, ks.ScrollUp)
	}
	if m.opts.Answers == nil {
		return append(b, ks.Help, ks.QuitRead)
	}
	if m.typing() {
		return append(b, withHelp(ks.Help, "f1", "help"), ks.Quit)
	}
	return append(b, ks.Help, ks.Quit)
}

func (m Model) footer(w int) []string {
	return []string{m.help.ShortHelpView(m.bindings())}
}

func (m Model) fullHelp(w int) []string {
	lines := []string{rule("Keys", w)}
	lines = append(lines, strings.Split(m.help.FullHelpView([][]keyBinding{
		{m.keys.Prev, m.keys.Pick, m.keys.Send},
		{m.keys.Complete, m.keys.Clear, m.keys.ScrollUp},
		{m.keys.Help, m.keys.Quit},
	}), "\n")...)
	return append(lines, "", "Answers go to the plan at the head of the queue; `hive answer PLAN TEXT` works from any terminal.")
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-lipgloss.Width(s))) + s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
