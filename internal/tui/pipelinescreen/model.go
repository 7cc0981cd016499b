package pipelinescreen

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// Messages of the pipeline screen. The run's observer sends them.
type (
	// SnapshotMsg is the pipeline's state after an event or command.
	SnapshotMsg struct{ Snapshot roleplan.Snapshot }
	// PlansMsg is the states of the implementers' plans.
	PlansMsg []PlanState
	// LogMsg is one line of the run's log.
	LogMsg string
	// FinishedMsg says the run is over: the screen quits.
	FinishedMsg struct{}
)

// answerSentMsg reports that the run took an answer.
type answerSentMsg struct {
	id   int
	text string
}

// Model is the live screen of hive run: the pipeline view, the question
// of a role that asks, in the same answer box as execute-phase's
// (options picked by number, ←/→ or tab, or an answer typed; the key help
// on ?), the newest lines of the run's log, and the keys. Ctrl+C stops the
// run (resumable) and leaves.
type Model struct {
	snap          roleplan.Snapshot
	plans         []PlanState
	logs          []string
	width, height int
	answers       chan<- string
	interrupt     func()
	box           tuikit.AnswerBox
	keys          tuikit.KeyMap
	sent          map[int]string // question id → the answer sent for it
	problem       string         // why the last answer to the open question was not sent
	// Interrupted says the human left with Ctrl+C.
	Interrupted bool
}

// New makes the screen; answers go to answers (nil: the screen only
// shows the run), and Ctrl+C calls interrupt.
func New(answers chan<- string, interrupt func()) Model {
	return Model{answers: answers, interrupt: interrupt, width: 80, height: 24,
		box: tuikit.NewAnswerBox("the role that asks", answers != nil), keys: tuikit.NewKeyMap(), sent: map[int]string{}}
}

func (m Model) Init() tea.Cmd { return nil }

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case SnapshotMsg:
		if open := msg.Snapshot.Open; open == nil || m.snap.Open == nil || open.ID != m.snap.Open.ID {
			m.problem = ""
		}
		m.snap = msg.Snapshot
		m.box = m.box.Ask(m.question())
	case PlansMsg:
		m.plans = append(m.plans[:0], msg...)
	case LogMsg:
		m.logs = append(m.logs, string(msg))
		if len(m.logs) > tuikit.MaxLog {
			m.logs = m.logs[len(m.logs)-tuikit.MaxLog:]
		}
	case answerSentMsg:
		m.box = m.box.Taken(msg.id)
	case FinishedMsg:
		return m, tea.Quit
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return m, nil
}

func (m Model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.Quit):
		m.Interrupted = true
		if m.interrupt != nil {
			m.interrupt()
		}
		return m, tea.Quit
	case key.Matches(k, ks.ScrollUp), key.Matches(k, ks.ScrollDown):
		_, last := m.render()
		if key.Matches(k, ks.ScrollUp) {
			m.box = m.box.Scrolled(-5, last)
		} else {
			m.box = m.box.Scrolled(5, last)
		}
		return m, nil
	case key.Matches(k, ks.Send):
		text, cp := m.box.Value(), m.snap.Open
		if text == "" || cp == nil {
			return m, nil
		}
		if _, sent := m.sent[cp.ID]; sent {
			// The run takes an answer for whatever it asks when the
			// answer arrives: a second enter would answer the next
			// question.
			return m, nil
		}
		if err := cp.Check(text); err != nil {
			m.problem = err.Error()
			m.box = m.box.Ask(m.question())
			return m, nil
		}
		m.sent[cp.ID], m.problem = text, ""
		m.box = m.box.Ask(m.question())
		answers, id := m.answers, cp.ID
		return m, func() tea.Msg { answers <- text; return answerSentMsg{id: id, text: text} }
	}
	var cmd tea.Cmd
	m.box, cmd = m.box.Update(k)
	return m, cmd
}

// question is the open question with what became of its answer.
func (m Model) question() *tuikit.Question {
	q := pipelineQuestion(m.snap.Open)
	if q == nil {
		return nil
	}
	if sent, ok := m.sent[q.ID]; ok {
		q.Sent = fmt.Sprintf("→ %q sent to the %s; waiting for hive to apply it", sent, q.Who)
	}
	q.Problem = m.problem
	return q
}

func (m Model) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the screen's text: the pipeline view, the question (or the
// key help), the log lines that fit, and the keys. What gives way to a
// small window is the log, then the rows of finished roles (folded into
// one line), then the view; never the question's title, its action line
// or its answer.
func (m Model) Screen() string {
	lines, _ := m.render()
	return strings.Join(lines, "\n")
}

// render is the screen's lines, and the last first line of the question's
// body that scrolling can reach (0 when it all shows).
func (m Model) render() ([]string, int) {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	footer := m.footer(w)
	if lw := m.snap.Limit; lw != nil && !m.snap.Finished {
		// The screen has no clock of its own: the reset's time, no countdown.
		at := lw.Until.Local().Format("15:04")
		text := fmt.Sprintf("waiting for %s at %s", lw.Kind.Awaited(), at)
		if lw.Guessed {
			text = fmt.Sprintf("waiting for %s (not said when: trying again at %s)", lw.Kind.Awaited(), at)
		}
		footer = append(tuikit.WrapText(tuikit.StAction.Render(text+": no role starts meanwhile; hive answer limit resume-now goes on now"), w), footer...)
	}
	view := m.view(w, false)
	need := 0
	switch {
	case m.box.HelpShown():
		need = len(m.fullHelp(w))
	case m.box.HasQuestion():
		need = m.box.Need(w)
	}
	if need > 0 && len(view)+need+len(footer) > h {
		view = m.view(w, true)
	}
	var pane []string
	last := 0
	switch {
	case m.box.HelpShown():
		pane = m.fullHelp(w)
	case m.box.HasQuestion():
		pane, last = m.box.View(w, h-len(view)-len(footer))
	}
	if extra := len(view) + len(pane) + len(footer) - h; extra > 0 {
		view = view[:max(1, len(view)-extra)] // the title stays
	}
	var log []string
	if rest := h - len(view) - len(pane) - len(footer); rest >= 2 {
		log = append([]string{tuikit.Rule("Log", w)}, m.logs[max(0, len(m.logs)-(rest-1)):]...)
	}
	lines := slices.Concat(view, pane, log, footer)
	if len(lines) > h {
		lines = append(lines[:max(0, h-len(footer))], footer...)
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Truncate(l, w, "…"), " ")
	}
	return lines, last
}

// view is the pipeline view without its question (the box asks it), and
// the run's outcome once it is over.
func (m Model) view(w int, tight bool) []string {
	lines := pipelineLines(m.snap, m.plans, w, tight)
	if m.snap.Finished {
		lines = append(lines, "", tuikit.StBold.Render("  run "+m.snap.Outcome))
	}
	return lines
}

func (m Model) footer(w int) []string {
	b := m.box.Bindings()
	if len(b) > 0 {
		b = append(b, [2]string{"pgup/pgdn", "scroll"})
	}
	k, d := m.box.HelpKey()
	b = append(b, [2]string{k, d})
	if w < tuikit.NarrowW {
		b = append(b, [2]string{"ctrl+c", "stop"}) // the help says it resumes
	} else {
		b = append(b, [2]string{"ctrl+c", "stop (resumable)"})
	}
	var parts []string
	for _, kd := range b {
		parts = append(parts, tuikit.StBold.Render(kd[0])+" "+tuikit.StFaint.Render(kd[1]))
	}
	return tuikit.JoinWrapped(parts, tuikit.StFaint.Render(" • "), w)
}

// fullHelp lists every key of the screen.
func (m Model) fullHelp(w int) []string {
	return m.box.HelpView(w, [][2]string{{"ctrl+c", "stop the run: the agents stop, their work is kept; hive run --resume goes on"}},
		"Answers go to the role that asks; `hive answer ROLE TEXT` works from any terminal.")
}

// pipelineQuestion is the question of hive run's role as the answer box
// asks it; nil when none is asked. A question that takes only its options
// is answered by picking one; one that takes more (any answer to a
// role's question, raise AMOUNT, accept REASON, reject FEEDBACK) also by
// typing it.
func pipelineQuestion(cp *roleplan.Checkpoint) *tuikit.Question {
	if cp == nil {
		return nil
	}
	q := &tuikit.Question{ID: cp.ID, Rule: cp.Job + " asks", Title: cp.Question, Who: cp.Job, Options: cp.Options,
		Default: max(0, slices.Index(cp.Options, cp.Default))}
	body := cp.Details
	if e := cp.Evaluation; e != nil {
		// The evaluation (every check once the human asks for details),
		// then what else the details say.
		body = e.Text(cp.View) + "\n\n" + strings.TrimSpace(strings.TrimPrefix(cp.Details, e.Text(false)))
	}
	q.Body = strings.Split(strings.TrimSpace(body), "\n")
	form := ""
	switch cp.Kind {
	case roleplan.KindNeedsInput:
		q.Free, q.Placeholder = true, "your answer"
		if len(cp.Options) > 0 {
			form, q.Placeholder = "your own answer", "or type your own answer"
		}
	case roleplan.KindBudget:
		q.Free, form, q.Placeholder = true, "raise AMOUNT", "or type raise AMOUNT"
	case roleplan.KindFindings:
		q.Free, form, q.Placeholder = true, "accept [ID] REASON, defer [ID], fix [ID]", "or type accept [ID] REASON, defer [ID], fix [ID]"
	case roleplan.KindReview, roleplan.KindEvaluation:
		q.Free, form, q.Placeholder = true, "reject FEEDBACK", "or type reject FEEDBACK"
	}
	action := "Select: " + strings.Join(cp.Options, ", ") + " (or its number)"
	switch {
	case len(cp.Options) == 0:
		action = "Type your answer"
	case form != "":
		action = "Select an option (or its number), or type " + form
	}
	q.Action = "→ YOUR ACTION: " + action + "; hive answer " + cp.Job + " \"…\" works from any terminal too"
	return q
}
