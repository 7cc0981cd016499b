package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
	"github.com/hivectl/hive/internal/work"
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
//
// Nothing that matters is cut: plan names and the header wrap onto more
// lines, the open checkpoint scrolls (pgup/pgdn) and its action line and
// answer are always shown; what gives way to a small window is the log, the
// PROGRESS lines, and the rows of waves that are all done or all pending.
func (m Model) Screen() string {
	lines, _ := m.render()
	return strings.Join(lines, "\n")
}

// render is the screen's lines, and the last first line of the open
// checkpoint's body that scrolling can reach (0 when it all shows).
func (m Model) render() ([]string, int) {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	if !m.hasSnap {
		msg := "hive: waiting for the run to start…"
		if m.opts.Dir != "" {
			msg += "\n" + m.opts.Dir
		}
		return strings.Split(msg, "\n"), 0
	}
	header := m.header(w)
	footer := m.footer(w)
	if m.Interrupted {
		footer = append(tuikit.WrapText(tuikit.StAction.Render("Stopping: hive stops the agents; the work of every plan so far is kept (commits and journal). ctrl+c again leaves at once."), w), footer...)
	} else if m.Pausing || m.snap.Pausing {
		footer = append(tuikit.WrapText(tuikit.StAction.Render("Pausing: each agent commits its work in progress and writes its notes; then hive writes HANDOFF.md and stops. The same command resumes."), w), footer...)
	} else if lw := m.snap.Limit; lw != nil {
		footer = append(tuikit.WrapText(tuikit.StAction.Render(LimitText(lw, m.now)+": no agent starts meanwhile; the plans go on from their commits then."), w), footer...)
	}
	lay := m.layout(w)
	head := m.head()
	if m.box.HelpShown() {
		head = nil // the help takes the checkpoint's place until it is closed
	}
	rows := m.planRows(lay, false)
	need := 0 // the lines the checkpoint (or the help) needs below the table
	switch {
	case m.box.HelpShown():
		need = len(m.fullHelp(w))
	case head != nil:
		need = m.box.Need(w)
	}
	if need > 0 && len(header)+1+countLines(rows)+need+len(footer) > h {
		rows = m.planRows(lay, true)
	}
	plans := []string{tuikit.Rule("Phase "+m.snap.Phase, w)}
	for _, r := range rows {
		plans = append(plans, r.lines...)
	}
	rest := h - len(header) - len(footer) - len(plans)

	// The open checkpoint comes first: it is what the human is needed for.
	var cp []string
	scrollMax := 0
	if head != nil {
		cp, scrollMax = m.box.View(w, rest)
		rest -= len(cp)
	}
	// Then each plan's last PROGRESS line, when the table had no room for
	// it, keeping three lines for the log.
	if !lay.inlineDetail {
		var out []string
		for _, r := range rows {
			out = append(out, r.lines...)
			if r.detail != "" && rest > 3 {
				out = append(out, r.detail)
				rest--
			}
		}
		plans = append(plans[:1], out...)
	}
	var tail []string
	switch {
	case m.box.HelpShown():
		tail = m.fullHelp(w)
	case rest >= 2:
		tail = m.logPane(w, rest)
	}
	lines := append(append(append(append(header, plans...), cp...), tail...), footer...)
	if len(lines) > h {
		lines = append(lines[:max(0, h-len(footer))], footer...)
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Truncate(l, w, "…"), " ")
	}
	return lines, scrollMax
}

func countLines(rows []planRow) int {
	n := 0
	for _, r := range rows {
		n += len(r.lines)
	}
	return n
}

// header is the run at a glance: what runs where, its state, wave, clock,
// plans done, tokens and cost (every agent's: plans, resolvers, verifier),
// each against its ceiling when the run has a budget, on as many lines as
// the width needs.
func (m Model) header(w int) []string {
	s := m.snap
	state := "running"
	switch {
	case s.Finished:
		state = "finished: " + s.Outcome
	case m.Interrupted:
		state = "stopping"
	case s.Aborted:
		state = "aborting"
	case len(s.Queue) > 0:
		state = fmt.Sprintf("%d waiting for you", len(s.Queue))
	case s.Limit != nil:
		state = "waiting: " + work.Limit{Kind: s.Limit.Kind}.Describe()
	}
	parts := []string{tuikit.StTitle.Render("hive") + " " + tuikit.StBold.Render(m.opts.Title)}
	if m.opts.Dir != "" {
		parts = append(parts, m.opts.Dir)
	}
	parts = append(parts, tuikit.StBold.Render(state))
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
	parts = append(parts, fmt.Sprintf("%d/%d done", s.Count(phase.Complete), len(s.Plans)))
	return tuikit.JoinWrapped(append(parts, spendParts(s)...), tuikit.StFaint.Render(" · "), w)
}

// spendParts are the header's tokens and cost: input and output tokens, or
// every token against a token budget ("1.2M/2M tok"); the dollars, or
// "$3.41/$5.00" against a budget in dollars; each a warning from 80 % of
// its ceiling and an error at it. A run one rung down the model ladder
// says so.
func spendParts(s phase.Snapshot) []string {
	sp, b := s.Spent, s.Budget
	tok := fmt.Sprintf("%s tok", tuikit.Tokens(sp.InputTokens+sp.OutputTokens))
	if b.Tokens > 0 {
		tok = tuikit.BudgetStyled(fmt.Sprintf("%s/%s tok", tuikit.Tokens(sp.Tokens()), tuikit.RoundTokens(b.Tokens)), float64(sp.Tokens()), float64(b.Tokens))
	}
	usd := cost(sp.CostUSD)
	if b.USD > 0 {
		usd = tuikit.BudgetStyled(cost(sp.CostUSD)+"/"+cost(b.USD), sp.CostUSD, b.USD)
	}
	parts := []string{tok, usd}
	if s.Rung > 0 && (b.USD > 0 || b.Tokens > 0) {
		parts = append(parts, tuikit.StAction.Render("cheaper models"))
	}
	return parts
}

// tableLayout is the plan table's columns for a width.
type tableLayout struct {
	idW, nameW   int
	barW         int
	tokens       bool // a tokens column per plan (the header has the total)
	deps         bool // a column of each plan's dependencies
	inlineDetail bool // the last PROGRESS line at the end of the row, else on a line of its own
	detailW      int
}

const (
	depsW      = 22 // the dependencies column
	minDetailW = 30 // less than this, the PROGRESS line goes on a line of its own
)

// layout gives the plan names the room they need first (a name that does
// not fit wraps), then the optional columns, widest screens first.
func (m Model) layout(w int) tableLayout {
	l := tableLayout{idW: 5, barW: 10, tokens: w >= tuikit.NarrowW}
	longest := 8
	for _, p := range m.snap.Plans {
		l.idW = max(l.idW, len(p.Spec.ID))
		longest = max(longest, lipgloss.Width(p.Spec.Name))
	}
	if !l.tokens {
		l.barW = 6
	}
	fixed := l.fixed()
	l.nameW = max(12, min(longest, w-fixed))
	room := w - fixed - l.nameW
	if room >= depsW+minDetailW {
		l.deps, room = true, room-depsW
	}
	if room >= minDetailW {
		l.inlineDetail, l.detailW = true, room-1
	}
	return l
}

// fixed is the width of every column but the name's and the optional ones.
func (l tableLayout) fixed() int {
	// "  ! " id " " name " " state bar " " tasks " " time " " [tokens " "] cost
	n := 4 + l.idW + 1 + 1 + 9 + l.barW + 1 + 5 + 1 + 6 + 1 + 7
	if l.tokens {
		n += 8
	}
	return n
}

// planRow is a plan's lines in the table (more than one when its name
// wraps) and its PROGRESS line when that is not in the row.
type planRow struct {
	lines  []string
	detail string
}

// planRows is the phase as waves: a heading per wave naming what it waits
// for, and a row per plan. Tight (a checkpoint needs the room) shows a wave
// whose plans are all complete, or all pending, on one line.
func (m Model) planRows(l tableLayout, tight bool) []planRow {
	s := m.snap
	var rows []planRow
	wave := -1
	for _, p := range s.Plans {
		if p.Spec.Wave != wave {
			wave = p.Spec.Wave
			heading := m.waveHeading(wave)
			if tight {
				if ids := m.waveAll(wave, phase.Complete); ids != "" {
					rows = append(rows, planRow{lines: []string{heading + " " + tuikit.StateLook[phase.Complete].Style.Render("✓ "+ids)}})
					continue
				}
				if ids := m.waveAll(wave, phase.Pending); ids != "" {
					rows = append(rows, planRow{lines: []string{heading + " " + tuikit.StateLook[phase.Pending].Style.Render("· "+ids+" pending")}})
					continue
				}
			}
			rows = append(rows, planRow{lines: []string{heading}})
		}
		if tight && (m.waveAll(wave, phase.Complete) != "" || m.waveAll(wave, phase.Pending) != "") {
			continue
		}
		rows = append(rows, m.planRow(p, l))
	}
	return rows
}

func (m Model) planRow(p *phase.PlanStatus, l tableLayout) planRow {
	look := tuikit.StateLook[p.State]
	name := tuikit.WrapText(p.Spec.Name, l.nameW)
	var b strings.Builder
	b.WriteString("  " + look.Style.Render(look.Icon) + " ")
	b.WriteString(tuikit.Pad(tuikit.StBold.Render(p.Spec.ID), l.idW) + " ")
	b.WriteString(tuikit.Pad(name[0], l.nameW) + " ")
	b.WriteString(tuikit.Pad(look.Style.Render(stateLabel(p.State)), 9))
	b.WriteString(bar(p.TasksDone, p.Spec.Tasks, l.barW, p.State) + " ")
	b.WriteString(tuikit.PadLeft(fmt.Sprintf("%d/%d", done(p), p.Spec.Tasks), 5) + " ")
	b.WriteString(tuikit.PadLeft(m.planClock(p), 6) + " ")
	if p.Attempt > 0 || p.CostUSD > 0 {
		if l.tokens {
			b.WriteString(tuikit.PadLeft(tuikit.Tokens(p.InputTokens+p.OutputTokens), 7) + " ")
		}
		b.WriteString(tuikit.PadLeft(cost(p.CostUSD), 7))
	} else if l.tokens {
		b.WriteString(strings.Repeat(" ", 15))
	} else {
		b.WriteString(strings.Repeat(" ", 7))
	}
	detail := planDetail(p)
	if l.deps {
		deps := ""
		if len(p.Spec.DependsOn) > 0 {
			deps = "← " + strings.Join(p.Spec.DependsOn, " ")
		}
		b.WriteString("  " + tuikit.Pad(tuikit.StFaint.Render(ansi.Truncate(deps, depsW-2, "…")), depsW-2))
	}
	if l.inlineDetail && detail != "" && lipgloss.Width(detail) <= l.detailW {
		b.WriteString(" " + detail)
		detail = ""
	}
	r := planRow{lines: []string{b.String()}}
	indent := strings.Repeat(" ", 4+l.idW+1)
	for _, more := range name[1:] {
		r.lines = append(r.lines, indent+more)
	}
	if detail != "" {
		r.detail = "      " + tuikit.StFaint.Render("└ ") + detail
	}
	return r
}

// waveAll lists a wave's plans when all are in state st.
func (m Model) waveAll(wave int, st phase.PlanState) string {
	var ids []string
	for _, p := range m.snap.Plans {
		if p.Spec.Wave == wave {
			if p.State != st {
				return ""
			}
			ids = append(ids, p.Spec.ID)
		}
	}
	return strings.Join(ids, " ")
}

func done(p *phase.PlanStatus) int {
	if p.State == phase.Complete {
		return p.Spec.Tasks
	}
	return p.TasksDone
}

// planDetail is the plan's last PROGRESS line, or why it stopped.
func planDetail(p *phase.PlanStatus) string {
	switch p.State {
	case phase.Failed, phase.Skipped:
		return tuikit.StateLook[p.State].Style.Render(tuikit.OneLine(p.Reason))
	case phase.Waiting:
		if p.Open != nil {
			return tuikit.StAction.Render("checkpoint: " + Title(*p.Open))
		}
	case phase.Running:
		switch p.Stage {
		case phase.StageMerge:
			return "merging into the integration branch"
		case phase.StageResolve:
			return "a resolver agent works on a merge conflict"
		case phase.StageGate:
			return "post-merge gate running"
		}
		detail := ""
		if p.Progress != "" {
			detail = fmt.Sprintf("PROGRESS %d/%d: %s", p.TasksDone, p.Spec.Tasks, tuikit.OneLine(p.Progress))
		} else if p.Attempt > 1 {
			detail = fmt.Sprintf("attempt %d", p.Attempt)
		}
		if g := contextGauge(p.Context); g != "" {
			detail = strings.TrimSpace(g + "  " + detail)
		}
		return detail
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
	h := tuikit.StBold.Render(fmt.Sprintf("Wave %d", wave))
	if wave == m.snap.CurrentWave && !m.snap.Finished {
		h += tuikit.StAction.Render(" ◀ now")
	}
	if len(needs) > 0 {
		h += tuikit.StFaint.Render(" · after " + strings.Join(needs, ", "))
	}
	return " " + h
}

func (m Model) planClock(p *phase.PlanStatus) string {
	if p.Started.IsZero() {
		return ""
	}
	end := m.now
	if p.State.Final() && !p.Finished.IsZero() {
		end = p.Finished
	}
	return clock(m.snap.Working(p.Started, end)) // the time hive was stopped does not count
}

func (m Model) logPane(w, room int) []string {
	out := []string{tuikit.Rule("Log", w)}
	n := room - 1
	start := max(0, len(m.logs)-n)
	for _, l := range m.logs[start:] {
		who := l.Plan
		if who == "" {
			who = "hive"
		}
		out = append(out, tuikit.StFaint.Render(l.Time.Local().Format("15:04:05"))+" "+tuikit.Pad(tuikit.StBold.Render(who), 6)+" "+tuikit.OneLine(l.Text))
	}
	return out
}

// bindings are the keys the footer offers now, as key and description.
func (m Model) bindings(w int) [][2]string {
	b := m.box.Bindings()
	if len(b) > 0 {
		b = append(b, [2]string{"pgup/pgdn", "scroll"})
	}
	k, d := m.box.HelpKey()
	b = append(b, [2]string{k, d})
	if m.opts.Answers == nil {
		return append(b, [2]string{"q", "quit"})
	}
	if m.snap.Limit != nil {
		b = append(b, [2]string{"ctrl+r", "go on now"})
	}
	if w < tuikit.NarrowW {
		return append(b, [2]string{"ctrl+c", "stop"}) // the help says it resumes
	}
	return append(b, [2]string{"ctrl+c", "stop (resumable)"})
}

func (m Model) footer(w int) []string {
	var parts []string
	for _, kd := range m.bindings(w) {
		parts = append(parts, tuikit.StBold.Render(kd[0])+" "+tuikit.StFaint.Render(kd[1]))
	}
	return tuikit.JoinWrapped(parts, tuikit.StFaint.Render(" • "), w)
}

// fullHelp lists every key, wrapped to the width.
func (m Model) fullHelp(w int) []string {
	keys := [][2]string{
		{"ctrl+p", "pause the team: each agent commits its work in progress and writes its notes, hive writes HANDOFF.md and stops; the same command resumes it"},
		{"ctrl+c", "stop the run: the agents stop, their work is kept, the same command resumes it"},
	}
	if m.snap.Limit != nil {
		keys = append(keys, [2]string{"ctrl+r", "go on now rather than wait for the provider's limit, as `hive answer limit resume-now` does (an agent meets the limit again if it has not passed)"})
	}
	if m.opts.Answers == nil {
		keys = [][2]string{{"q", "quit (the run goes on)"}}
	}
	return m.box.HelpView(w, keys, "Answers go to the plan at the head of the queue; `hive answer PLAN TEXT` works from any terminal.")
}
