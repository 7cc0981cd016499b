package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/pipeline"
)

// Messages of the pipeline screen. The run's observer sends them.
type (
	// PipelineMsg is the pipeline's state after an event or command.
	PipelineMsg struct{ Snapshot pipeline.Snapshot }
	// PlansMsg is the states of the implementers' plans.
	PlansMsg []PlanState
	// PipelineLogMsg is one line of the run's log.
	PipelineLogMsg string
)

// PipelineModel is the live screen of hive run: the pipeline view, the
// newest lines of the run's log below it, and, while a role asks, a line
// to type the answer in. Ctrl+C stops the run (resumable) and leaves.
type PipelineModel struct {
	snap          pipeline.Snapshot
	plans         []PlanState
	logs          []string
	input         string
	width, height int
	answers       chan<- string
	interrupt     func()
	// Interrupted says the human left with Ctrl+C.
	Interrupted bool
}

// NewPipeline makes the screen; typed answers go to answers, and Ctrl+C
// calls interrupt.
func NewPipeline(answers chan<- string, interrupt func()) PipelineModel {
	return PipelineModel{answers: answers, interrupt: interrupt, width: 80, height: 24}
}

func (m PipelineModel) Init() tea.Cmd { return nil }

func (m PipelineModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case PipelineMsg:
		m.snap = msg.Snapshot
		if m.snap.Open == nil {
			m.input = ""
		}
	case PlansMsg:
		m.plans = append(m.plans[:0], msg...)
	case PipelineLogMsg:
		m.logs = append(m.logs, string(msg))
		if len(m.logs) > 500 {
			m.logs = m.logs[len(m.logs)-500:]
		}
	case FinishedMsg:
		return m, tea.Quit
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return m, nil
}

func (m PipelineModel) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "ctrl+c":
		m.Interrupted = true
		if m.interrupt != nil {
			m.interrupt()
		}
		return m, tea.Quit
	}
	if m.snap.Open == nil || m.answers == nil {
		return m, nil
	}
	switch k.String() {
	case "enter":
		text := strings.TrimSpace(m.input)
		if text == "" {
			return m, nil
		}
		m.input = ""
		answers := m.answers
		return m, func() tea.Msg { answers <- text; return nil }
	case "backspace":
		if r := []rune(m.input); len(r) > 0 {
			m.input = string(r[:len(r)-1])
		}
	case "tab":
		// Tab completes the first option the typed text begins.
		for _, o := range m.snap.Open.Options {
			if strings.HasPrefix(o, strings.ToLower(m.input)) {
				m.input = o
				break
			}
		}
	default:
		if t := k.Text; t != "" {
			m.input += t
		}
	}
	return m, nil
}

func (m PipelineModel) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the screen's text: the pipeline view, the log lines that fit
// under it, and the answer line while a role asks.
func (m PipelineModel) Screen() string {
	top := strings.TrimRight(PipelineView(m.snap, m.plans, m.width), "\n")
	lines := strings.Split(top, "\n")
	var bottom []string
	if m.snap.Open != nil && m.answers != nil {
		bottom = append(bottom, stAction.Render("answer › ")+m.input+"█", stFaint.Render("enter sends · tab completes an option · ctrl+c stops (hive run --resume goes on)"))
	} else {
		bottom = append(bottom, stFaint.Render("ctrl+c stops the run; hive run --resume goes on"))
	}
	room := m.height - len(lines) - len(bottom) - 1
	logs := m.logs
	if room < len(logs) {
		logs = logs[len(logs)-max(room, 0):]
	}
	lines = append(lines, stRule.Render(strings.Repeat("─", max(m.width, 1))))
	for _, l := range logs {
		lines = append(lines, ansi.Truncate(l, m.width, "…"))
	}
	return strings.Join(append(lines, bottom...), "\n")
}
