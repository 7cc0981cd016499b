package tuikit

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Question is what a live screen asks the human, as the answer box shows
// it: execute-phase's open checkpoint, or the question of hive run's role.
type Question struct {
	// ID tells questions apart: a new one starts a fresh answer.
	ID int
	// Rule heads the pane; Title is the question itself.
	Rule, Title string
	// Body is what the human reads to answer (rendered, not wrapped yet):
	// it wraps to the width and scrolls with pgup/pgdn when long.
	Body []string
	// Action says how to answer; it is never scrolled away.
	Action string
	// Options are picked by number, with ←/→ or with tab. Free: besides
	// them, any text may be typed (Options may then be empty).
	Options []string
	Free    bool
	// Default is the option chosen at first.
	Default int
	// Placeholder fills an empty typed answer; tab completes typed text to
	// one of Suggestions (Options when nil).
	Placeholder string
	Suggestions []string
	// Who answers it from a terminal: hive answer WHO "…".
	Who string
	// Sent says the answer was sent and not yet applied ("" when not);
	// Problem, why the answer was not sent.
	Sent, Problem string
	// Others are the questions waiting their turn, one line each.
	Others []string
}

// AnswerBox is how both live screens, execute-phase's dashboard and hive
// run's pipeline screen, show a question and take its answer: the
// question's pane (title, a body that scrolls, the action line), its
// options to pick or the line to type in, the keys that do that, and the
// key help. One widget, so that a question reads and answers the same
// wherever it is asked. The screen handles enter (it alone knows where an
// answer goes: it sends Value), pgup/pgdn (it knows the room) and its own
// keys first; Update takes the rest. View is pure.
type AnswerBox struct {
	to      string // who the answer goes to, for the help
	answers bool   // the screen sends answers (else it only shows them)
	keys    KeyMap

	q      *Question // nil: nothing is asked
	choice int       // the option chosen
	scroll int       // the first line of the body shown
	input  field
	help   bool // the key help is shown in place of the question
}

// NewAnswerBox is a box whose answers go to to; answers says the screen
// can send them.
func NewAnswerBox(to string, answers bool) AnswerBox {
	return AnswerBox{to: to, answers: answers, keys: NewKeyMap()}
}

// Ask shows q (nil: nothing is asked). The same question again, as a new
// snapshot redraws it, keeps what was chosen, typed and scrolled; a new
// one starts at its default option with nothing typed.
func (b AnswerBox) Ask(q *Question) AnswerBox {
	same := b.q != nil && q != nil && b.q.ID == q.ID
	b.q = q
	if same {
		return b
	}
	b.choice, b.scroll, b.input = 0, 0, field{}
	if q == nil {
		return b
	}
	if q.Default > 0 && q.Default < len(q.Options) {
		b.choice = q.Default
	}
	if b.answers && q.Free {
		sugg := q.Suggestions
		if sugg == nil {
			sugg = q.Options
		}
		b.input = field{focused: true, placeholder: q.Placeholder, suggestions: sugg}
	}
	return b
}

// Taken: the runner took the answer to question id; what was typed goes.
func (b AnswerBox) Taken(id int) AnswerBox {
	if b.q != nil && b.q.ID == id {
		b.input.reset()
	}
	return b
}

// asking says a question waits for an answer from this screen.
func (b AnswerBox) asking() bool { return b.q != nil && b.answers }

// HasQuestion says a question is shown (Ask was given one).
func (b AnswerBox) HasQuestion() bool { return b.q != nil }

// HelpShown says the key help is shown in place of the question.
func (b AnswerBox) HelpShown() bool { return b.help }

// typed says an answer is being typed: ? is then one of its characters.
func (b AnswerBox) typed() bool { return strings.TrimSpace(b.input.text()) != "" }

// picking says the option keys choose an option: always for a question
// that takes only its options, and for one that also takes text until
// something is typed.
func (b AnswerBox) picking() bool {
	return b.asking() && len(b.q.Options) > 0 && (!b.q.Free || !b.typed())
}

// Value is what enter sends now: the text typed, else the option chosen;
// "" when there is nothing to send.
func (b AnswerBox) Value() string {
	if !b.asking() {
		return ""
	}
	if t := strings.TrimSpace(b.input.text()); t != "" {
		return t
	}
	if b.picking() {
		return b.q.Options[b.choice]
	}
	return ""
}

// Update takes a key: the help's, an option's, or one of the answer being
// typed.
func (b AnswerBox) Update(msg tea.Msg) (AnswerBox, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return b, nil
	}
	ks := b.keys
	switch {
	case k.String() == "f1",
		key.Matches(k, ks.Help) && (!b.typed() || b.help),
		b.help && k.String() == "esc":
		// ? is a character of an answer once one is being typed; before
		// that, and for a question of options only, it opens the help.
		b.help = !b.help
		return b, nil
	}
	if !b.asking() {
		return b, nil
	}
	if b.picking() {
		// Where text may be typed, h/j/k/l are letters of it, not moves.
		letter := b.q.Free && k.Text != ""
		n := len(b.q.Options)
		switch {
		case key.Matches(k, ks.Prev) && !letter:
			b.choice = (b.choice + n - 1) % n
			return b, nil
		case key.Matches(k, ks.Next) && !letter:
			b.choice = (b.choice + 1) % n
			return b, nil
		case key.Matches(k, ks.Pick):
			if i := int(k.String()[0] - '1'); i < n {
				b.choice = i
			}
			return b, nil
		}
	}
	if !b.q.Free {
		return b, nil
	}
	if key.Matches(k, ks.Clear) {
		b.input.reset()
		return b, nil
	}
	b.input.update(k)
	return b, nil
}

// Scrolled moves the body by delta lines, within what the screen can show
// (last, from View): past the end, pgup would seem to do nothing.
func (b AnswerBox) Scrolled(delta, last int) AnswerBox {
	if delta < 0 {
		b.scroll = max(0, min(b.scroll, last)+delta)
	} else {
		b.scroll = min(b.scroll+delta, last)
	}
	return b
}

// View is the question's pane in at most room lines: the body scrolls;
// the rule, the title, the action line and the answer are always shown.
// The int is the last first line of the body that scrolling can reach (0
// when it all shows).
func (b AnswerBox) View(w, room int) ([]string, int) {
	q := b.q
	if q == nil {
		return nil, 0
	}
	wrapped := b.body(w)
	top := append([]string{Rule(q.Rule, w)}, WrapText(StAction.Render(q.Title), w)...)
	bottom := append(WrapText(StAction.Render(q.Action), w), b.answerLines(w)...)
	for _, o := range q.Others {
		bottom = append(bottom, WrapText(StFaint.Render(o), w)...)
	}
	// Keep a few lines for the log when there is room to spare.
	space := room - len(top) - len(bottom) - 3
	if len(wrapped) <= space {
		return append(append(top, wrapped...), bottom...), 0
	}
	// Short of room: the blank lines between sections go first.
	var dense []string
	for _, l := range wrapped {
		if strings.TrimSpace(ansi.Strip(l)) != "" {
			dense = append(dense, l)
		}
	}
	wrapped = dense
	if len(wrapped) <= space {
		return append(append(top, wrapped...), bottom...), 0
	}
	space += 3 // no room to spare: the question matters more than the log
	if len(wrapped) <= space {
		return append(append(top, wrapped...), bottom...), 0
	}
	space = max(2, space)
	if len(wrapped) <= space {
		// A scroll marker would take the line the body needs.
		return append(append(top, wrapped...), bottom...), 0
	}
	last := max(0, len(wrapped)-space+1)
	first := min(b.scroll, last)
	shown := wrapped[first:min(len(wrapped), first+space-1)]
	more := StFaint.Render(fmt.Sprintf("  ↕ lines %d-%d of %d · pgup/pgdn", first+1, first+len(shown), len(wrapped)))
	return append(append(append(top, shown...), more), bottom...), last
}

// Need is how many lines the pane takes unscrolled.
func (b AnswerBox) Need(w int) int {
	lines, _ := b.View(w, 1000)
	return len(lines)
}

// body is the question's body wrapped to the width: what scrolls.
func (b AnswerBox) body(w int) []string {
	var wrapped []string
	for _, l := range b.q.Body {
		wrapped = append(wrapped, WrapText(l, max(10, w-2))...)
	}
	for len(wrapped) > 0 && wrapped[0] == "" {
		wrapped = wrapped[1:]
	}
	return wrapped
}

// answerLines are the options to pick from, numbered, the chosen one
// marked while a pick is what enter sends, and the line to type in; on a
// screen that only shows, the command that answers from a terminal.
func (b AnswerBox) answerLines(w int) []string {
	q := b.q
	if !b.answers {
		return WrapText(StFaint.Render(fmt.Sprintf("answer from a terminal: hive answer %s \"<response>\"", q.Who)), w)
	}
	var out []string
	if q.Sent != "" {
		out = append(out, WrapText(StSent.Render(q.Sent), w)...)
	}
	if q.Problem != "" {
		out = append(out, WrapText(StError.Render(q.Problem), w)...)
	}
	if len(q.Options) > 0 {
		var opts []string
		for i, o := range q.Options {
			label := fmt.Sprintf(" %d %s ", i+1, o)
			if i == b.choice && b.picking() {
				opts = append(opts, StChosen.Render("["+strings.TrimSpace(label)+"]"))
			} else {
				opts = append(opts, label)
			}
		}
		if line := "  " + strings.Join(opts, "  "); lipgloss.Width(line) <= w {
			out = append(out, line)
		} else {
			// One option a line, its text wrapped under itself.
			for _, o := range opts {
				out = append(out, WrapWords("  "+o, w, 3)...)
			}
		}
	}
	if !q.Free {
		return out
	}
	in := b.input.text()
	shown := StBold.Render("> ") + in + StChosen.Render(" ")
	if in == "" {
		shown = StBold.Render("> ") + StChosen.Render(" ") + StFaint.Render(b.input.placeholder)
	} else if s := b.input.suggestion(); s != "" {
		shown += StFaint.Render(s[len(in):] + "  (tab)")
	}
	// Keep the end of a long answer in view, where the typing is.
	if lipgloss.Width(shown) > w {
		shown = ansi.TruncateLeft(shown, lipgloss.Width(shown)-w+1, "…")
	}
	return append(out, shown)
}

// Bindings are the answering keys the footer offers now, as key and
// description: none while the help is shown or nothing is asked.
func (b AnswerBox) Bindings() [][2]string {
	switch {
	case b.help || !b.asking():
		return nil
	case b.picking():
		return [][2]string{{"←/→", "choose"}, {"1-9", "pick"}, {"enter", "send"}}
	}
	return [][2]string{{"enter", "send"}, {"tab", "complete"}, {"esc", "clear"}}
}

// HelpKey is how the help key reads in the footer: ? opens the help unless
// an answer is being typed, where ? is a character and f1 opens it.
func (b AnswerBox) HelpKey() (key, desc string) {
	switch {
	case b.help:
		return "?/esc", "close help"
	case b.typed():
		return "f1", "help (? types)"
	}
	return "?", "help"
}

// HelpView lists the keys of answering, then the screen's own, wrapped to
// the width, and closes with note.
func (b AnswerBox) HelpView(w int, screen [][2]string, note string) []string {
	keys := [][2]string{{"? or f1", "this help; ? or esc closes it"}}
	if b.answers {
		keys = [][2]string{
			{"←/→, 1-9", "choose an option (tab and shift+tab too, before anything is typed)"},
			{"enter", "send the answer to " + b.to},
			{"tab", "complete what you typed (approved, done, …); again for the next"},
			{"esc", "clear the answer"},
			{"pgup/pgdn", "scroll a long question or checkpoint"},
			{"? or f1", "this help; while you type an answer, ? is a character and f1 opens the help; ? or esc closes it"},
		}
	}
	lines := []string{Rule("Keys", w)}
	for _, kd := range append(keys, screen...) {
		for i, l := range WrapText(kd[1], max(10, w-13)) {
			k := ""
			if i == 0 {
				k = kd[0]
			}
			lines = append(lines, " "+Pad(StBold.Render(k), 11)+" "+l)
		}
	}
	return append(append(lines, ""), WrapText(Inline(note), w)...)
}
