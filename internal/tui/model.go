package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/hivectl/hive/internal/engine"
)

// maxLog is how many log lines the dashboard keeps.
const maxLog = 500

// Options configure a dashboard.
type Options struct {
	// Answers is where the dashboard sends what the human answers: the
	// runner's Answers channel. Nil makes the dashboard read-only.
	Answers chan<- engine.Answer
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
	snap    engine.Snapshot
	hasSnap bool
	started time.Time
	now     time.Time
	width   int
	height  int
	logs    []LogLine

	headID   int // the checkpoint the input belongs to; 0 for none
	choice   int // the selected option of a decision
	scroll   int // first line of the checkpoint's body shown
	input    field
	sent     map[int]string // checkpoint id → the answer the runner took
	showHelp bool
	keys     keyMap

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
		keys: newKeyMap(),
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
		if len(m.logs) > maxLog {
			m.logs = m.logs[len(m.logs)-maxLog:]
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
		if msg.id == m.headID {
			m.input.reset()
		}
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return m, nil
}

// setSnapshot shows a new state; a new head of the checkpoint queue gets a
// fresh input.
func (m Model) setSnapshot(s engine.Snapshot) (tea.Model, tea.Cmd) {
	m.snap, m.hasSnap = s, true
	if m.now.IsZero() {
		m.now = time.Now()
	}
	head := m.head()
	id := 0
	if head != nil {
		id = head.ID
	}
	if id == m.headID {
		return m, nil
	}
	m.headID, m.choice, m.scroll = id, 0, 0
	m.input = field{}
	if head == nil || m.opts.Answers == nil || selectOnly(*head) {
		return m, nil
	}
	m.input = field{focused: true, placeholder: placeholder(*head), suggestions: suggestions(*head)}
	return m, nil
}

// head is the checkpoint to answer now: the head of the queue.
func (m Model) head() *engine.Checkpoint {
	if len(m.snap.Queue) == 0 {
		return nil
	}
	cp := m.snap.Queue[0]
	return &cp
}

// typing says keys go to the text input.
func (m Model) typing() bool { return m.input.focused }

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
			case ch <- engine.Answer{Pause: true}:
			case <-done:
			}
			return nil
		}
	case k.String() == "f1",
		key.Matches(k, ks.Help) && (!m.typing() || m.input.text() == "" || m.showHelp),
		m.showHelp && k.String() == "esc":
		// ? is a character of an answer once one is being typed; before
		// that, and for a decision, it opens the help.
		m.showHelp = !m.showHelp
		return m, nil
	case key.Matches(k, ks.ScrollUp), key.Matches(k, ks.ScrollDown):
		// Scroll within what the screen can show: past the end, pgup
		// would seem to do nothing.
		_, last := m.render()
		if key.Matches(k, ks.ScrollUp) {
			m.scroll = max(0, min(m.scroll, last)-5)
		} else {
			m.scroll = min(m.scroll+5, last)
		}
		return m, nil
	}
	head := m.head()
	if head == nil || m.opts.Answers == nil {
		return m, nil
	}
	if selectOnly(*head) {
		n := len(head.Options)
		switch {
		case key.Matches(k, ks.Prev):
			m.choice = (m.choice + n - 1) % n
		case key.Matches(k, ks.Next):
			m.choice = (m.choice + 1) % n
		case key.Matches(k, ks.Pick):
			if i := int(k.String()[0] - '1'); i < n {
				m.choice = i
			}
		case key.Matches(k, ks.Send):
			return m, m.send(*head, head.Options[m.choice])
		}
		return m, nil
	}
	switch {
	case key.Matches(k, ks.Send):
		text := strings.TrimSpace(m.input.text())
		if text == "" {
			return m, nil
		}
		return m, m.send(*head, text)
	case key.Matches(k, ks.Clear):
		m.input.reset()
		return m, nil
	}
	m.input.update(k)
	return m, nil
}

// send hands an answer to the runner. It runs as a command, off the UI
// goroutine, since the runner may be busy for a moment.
func (m Model) send(cp engine.Checkpoint, text string) tea.Cmd {
	ch, done := m.opts.Answers, m.opts.Done
	return func() tea.Msg {
		select {
		case ch <- engine.Answer{Plan: cp.Plan, Text: text}:
			return answerSentMsg{id: cp.ID, text: text}
		case <-done:
			return nil
		}
	}
}

// selectOnly: the answer is one of the checkpoint's options, picked with
// the keyboard; anything else is typed.
func selectOnly(cp engine.Checkpoint) bool {
	return len(cp.Options) > 0 && (cp.Kind == engine.KindFailure || cp.Type == "decision")
}

func placeholder(cp engine.Checkpoint) string {
	switch {
	case cp.Kind == engine.KindPermission:
		return "allow, deny [reason] or always"
	case cp.Type == "human-verify":
		return `approved, or describe the issues`
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return "done"
	case cp.Kind == engine.KindDeviation:
		return "yes, different approach, or defer"
	case cp.Kind == engine.KindBudget:
		return "raise, raise AMOUNT, or stop"
	}
	return "your answer"
}

func suggestions(cp engine.Checkpoint) []string {
	switch {
	case cp.Kind == engine.KindPermission:
		return []string{"allow", "deny", "always"}
	case cp.Type == "human-verify":
		return []string{"approved"}
	case cp.Type == "human-action" || cp.Type == "auth-gate":
		return []string{"done"}
	case cp.Kind == engine.KindDeviation:
		return []string{"yes", "different approach", "defer"}
	}
	return cp.Options
}
