package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// Options configure a dashboard.
type Options struct {
	// Answers is where the dashboard sends what the human answers: the
	// runner's Answers channel. Nil makes the dashboard read-only.
	Answers chan<- phase.Answer
	// Done is closed when the run ends, so that an answer nobody will
	// read any more is dropped instead of blocking.
	Done <-chan struct{}
	// Now is the clock at start; TickMsg moves it on.
	Now time.Time
	// Tick makes the dashboard ask for a TickMsg every second (off in
	// golden tests, whose clock stands still).
	Tick bool
	// Title names what is shown: "execute-phase", "status --watch".
	Title string
	// Dir is the repository the run works in, shown in the header.
	Dir string
	// Interrupt stops the run (ctrl+c). The dashboard stays up, saying it
	// is stopping, until FinishedMsg; a second ctrl+c leaves at once. Nil:
	// ctrl+c leaves at once, and the caller stops the run.
	Interrupt func()
}

// Model is the dashboard's state: the latest snapshot, the log, and the
// answer being typed.
type Model struct {
	opts    Options
	snap    phase.Snapshot
	hasSnap bool
	started time.Time
	now     time.Time
	width   int
	height  int
	logs    []LogLine

	box  tuikit.AnswerBox
	sent map[int]string // checkpoint id → the answer the runner took
	keys tuikit.KeyMap

	// Interrupted: the human stopped the run from the dashboard.
	Interrupted bool
	// Pausing: the human pressed ctrl+p; the runner pauses the team.
	Pausing  bool
	finished bool
}

// New returns a dashboard with no snapshot yet.
func New(o Options) Model {
	return Model{
		opts: o,
		now:  o.Now,
		sent: map[int]string{},
		keys: tuikit.NewKeyMap(),
		box:  tuikit.NewAnswerBox("the plan at the head of the queue", o.Answers != nil),
	}
}

// Init implements tea.Model.
func (m Model) Init() tea.Cmd {
	if m.opts.Tick {
		return tick()
	}
	return nil
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return TickMsg(t) })
}

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case batchMsg:
		var cmds []tea.Cmd
		var next tea.Model = m
		for _, one := range msg {
			var c tea.Cmd
			next, c = next.Update(one)
			cmds = append(cmds, c)
		}
		return next, tea.Batch(cmds...)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case SnapshotMsg:
		return m.setSnapshot(msg.Snap)
	case StartedMsg:
		m.started = msg.Time
	case LogMsg:
		m.logs = append(m.logs, LogLine(msg))
		if len(m.logs) > tuikit.MaxLog {
			m.logs = m.logs[len(m.logs)-tuikit.MaxLog:]
		}
	case TickMsg:
		m.now = time.Time(msg)
		if m.opts.Tick {
			return m, tick()
		}
	case FinishedMsg:
		m.finished = true
		return m, tea.Quit
	case BellMsg:
		return m, tea.Raw("\a")
	case answerSentMsg:
		m.sent[msg.id] = msg.text
		m.box = m.box.Ask(m.question()).Taken(msg.id)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return m, nil
}

// setSnapshot shows a new state; a new head of the checkpoint queue gets a
// fresh answer.
func (m Model) setSnapshot(s phase.Snapshot) (tea.Model, tea.Cmd) {
	m.snap, m.hasSnap = s, true
	if m.now.IsZero() {
		m.now = time.Now()
	}
	m.box = m.box.Ask(m.question())
	return m, nil
}

// head is the checkpoint to answer now: the head of the queue.
func (m Model) head() *phase.Checkpoint {
	if len(m.snap.Queue) == 0 {
		return nil
	}
	cp := m.snap.Queue[0]
	return &cp
}

func (m Model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	switch {
	case m.opts.Answers == nil && key.Matches(k, ks.QuitRead):
		return m, tea.Quit
	case key.Matches(k, ks.Quit):
		if m.Interrupted || m.opts.Interrupt == nil {
			m.Interrupted = true
			return m, tea.Quit
		}
		// Stay up while the runner stops the agents: the screen says so.
		m.Interrupted = true
		stop := m.opts.Interrupt
		return m, func() tea.Msg { stop(); return nil }
	case key.Matches(k, ks.Pause) && m.opts.Answers != nil && !m.Pausing:
		m.Pausing = true
		ch, done := m.opts.Answers, m.opts.Done
		return m, func() tea.Msg {
			select {
			case ch <- phase.Answer{Pause: true}:
			case <-done:
			}
			return nil
		}
	case key.Matches(k, ks.ResumeNow) && m.opts.Answers != nil && m.snap.Limit != nil:
		// As `hive answer limit resume-now`: the plans go on now, and meet
		// the limit again if it has not passed.
		ch, done := m.opts.Answers, m.opts.Done
		return m, func() tea.Msg {
			select {
			case ch <- phase.Answer{Plan: phase.LimitID, Text: phase.ResumeNow}:
			case <-done:
			}
			return nil
		}
	case key.Matches(k, ks.ScrollUp), key.Matches(k, ks.ScrollDown):
		_, last := m.render()
		if key.Matches(k, ks.ScrollUp) {
			m.box = m.box.Scrolled(-5, last)
		} else {
			m.box = m.box.Scrolled(5, last)
		}
		return m, nil
	case key.Matches(k, ks.Send):
		if head := m.head(); head != nil {
			if text := m.box.Value(); text != "" {
				return m, m.send(*head, text)
			}
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.box, cmd = m.box.Update(k)
	return m, cmd
}

// send hands an answer to the runner. It runs as a command, off the UI
// goroutine, since the runner may be busy for a moment.
func (m Model) send(cp phase.Checkpoint, text string) tea.Cmd {
	ch, done := m.opts.Answers, m.opts.Done
	return func() tea.Msg {
		select {
		case ch <- phase.Answer{Plan: cp.Plan, Text: text}:
			return answerSentMsg{id: cp.ID, text: text}
		case <-done:
			return nil
		}
	}
}

// selectOnly: the answer is one of the checkpoint's options, picked with
// the keyboard; anything else is typed.
func selectOnly(cp phase.Checkpoint) bool {
	return len(cp.Options) > 0 && (cp.Kind == phase.KindFailure || cp.Type == "decision")
}

// question is the head of the checkpoint queue as the answer box asks it,
// in seed 000's format; nil when nothing waits.
func (m Model) question() *tuikit.Question {
	cp := m.head()
	if cp == nil {
		return nil
	}
	queue := m.snap.Queue
	all := strings.Split(strings.TrimRight(headText(*cp, m.snap.Plans, len(queue)), "\n"), "\n")
	q := &tuikit.Question{ID: cp.ID, Rule: fmt.Sprintf("Checkpoint Queue (%d pending)", len(queue)), Title: tuikit.HeadingText(all[0]),
		Action: all[len(all)-1], Who: cp.Plan}
	for _, l := range all[1 : len(all)-1] {
		q.Body = append(q.Body, tuikit.MarkdownLine(l))
	}
	if selectOnly(*cp) {
		q.Options = cp.Options
	} else {
		q.Free, q.Placeholder, q.Suggestions = true, placeholder(*cp), suggestions(*cp)
	}
	if sent, ok := m.sent[cp.ID]; ok {
		q.Sent = fmt.Sprintf("→ %q sent to executor-%s; waiting for hive to apply it", sent, cp.Plan)
	}
	for i, o := range queue[1:] {
		if i == 2 && len(queue) > 4 {
			q.Others = append(q.Others, fmt.Sprintf("… and %d more", len(queue)-3))
			break
		}
		q.Others = append(q.Others, fmt.Sprintf("%d of %d: %s (waiting its turn)", i+2, len(queue), heading(o)))
	}
	return q
}

func placeholder(cp phase.Checkpoint) string {
	switch {
	case cp.Kind == phase.KindPermission:
		return "allow, deny [reason] or always"
	case cp.Type == "human-verify":
		return `approved, or describe the issues`
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return "done"
	case cp.Kind == phase.KindDeviation:
		return "yes, different approach, or defer"
	case cp.Kind == phase.KindBudget:
		return "raise, raise AMOUNT, or stop"
	}
	return "your answer"
}

func suggestions(cp phase.Checkpoint) []string {
	switch {
	case cp.Kind == phase.KindPermission:
		return []string{"allow", "deny", "always"}
	case cp.Type == "human-verify":
		return []string{"approved"}
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return []string{"done"}
	case cp.Kind == phase.KindDeviation:
		return []string{"yes", "different approach", "defer"}
	}
	return cp.Options
}
