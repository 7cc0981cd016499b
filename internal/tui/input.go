package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// field is a one-line text input. bubbles' textinput would pull modules
// (a clipboard library) that go.sum does not carry; an answer needs only
// typing, backspace, clearing and completing a suggestion.
type field struct {
	value       []rune
	focused     bool
	placeholder string
	suggestions []string
}

func (f *field) reset()           { f.value = nil }
func (f *field) text() string     { return string(f.value) }
func (f *field) setText(s string) { f.value = []rune(s) }

// update applies a key press; it reports whether the key was used.
func (f *field) update(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "backspace", "ctrl+h":
		if len(f.value) > 0 {
			f.value = f.value[:len(f.value)-1]
		}
	case "ctrl+u":
		f.value = nil
	case "ctrl+w":
		s := strings.TrimRight(string(f.value), " ")
		if i := strings.LastIndex(s, " "); i >= 0 {
			f.value = []rune(s[:i+1])
		} else {
			f.value = nil
		}
	case "tab":
		if s := f.suggestion(); s != "" {
			f.setText(s)
		}
	case "space":
		f.value = append(f.value, ' ')
	default:
		if k.Text == "" {
			return false
		}
		f.value = append(f.value, []rune(k.Text)...)
	}
	return true
}

// suggestion is the first suggestion that extends what was typed.
func (f *field) suggestion() string {
	typed := strings.ToLower(f.text())
	for _, s := range f.suggestions {
		if strings.HasPrefix(strings.ToLower(s), typed) && len(s) > len(typed) {
			return s
		}
	}
	return ""
}
