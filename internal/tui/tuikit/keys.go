package tuikit

import "charm.land/bubbles/v2/key"

// KeyMap is every key the screens know (their footers and the help say
// them in words).
type KeyMap struct {
	Prev, Next     key.Binding
	Pick           key.Binding
	Send           key.Binding
	Clear          key.Binding
	ScrollUp       key.Binding
	ScrollDown     key.Binding
	Help           key.Binding
	Pause          key.Binding
	ResumeNow      key.Binding
	Quit, QuitRead key.Binding
}

// NewKeyMap is the keys of both screens.
func NewKeyMap() KeyMap {
	return KeyMap{
		Prev:       key.NewBinding(key.WithKeys("left", "up", "h", "k", "shift+tab"), key.WithHelp("←/→", "choose option")),
		Next:       key.NewBinding(key.WithKeys("right", "down", "l", "j", "tab"), key.WithHelp("←/→", "choose option")),
		Pick:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "option by number")),
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send answer")),
		Clear:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
		ScrollUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll checkpoint")),
		ScrollDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgup/pgdn", "scroll checkpoint")),
		Help:       key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "help")),
		Pause:      key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "pause the team")),
		ResumeNow:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "go on now")),
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop (resumable)")),
		QuitRead:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}
