package tuikit

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
	// completing: the last key was tab, which completed prefix (what was
	// typed before it) to its n-th suggestion; tab again takes the next.
	completing bool
	prefix     string
	n          int
}

func (f *field) reset()           { f.value, f.completing = nil, false }
func (f *field) text() string     { return string(f.value) }
func (f *field) setText(s string) { f.value = []rune(s) }

// update applies a key press; it reports whether the key was used.
func (f *field) update(k tea.KeyPressMsg) bool {
	if k.String() != "tab" {
		f.completing = false
	}
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
		f.complete()
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

// complete sets the answer to the first suggestion that extends what was
// typed, and on each tab after it to the next one, round.
func (f *field) complete() {
	if !f.completing {
		f.completing, f.prefix, f.n = true, f.text(), -1
	}
	fits := f.extending(f.prefix)
	if len(fits) == 0 {
		return
	}
	f.n = (f.n + 1) % len(fits)
	f.setText(fits[f.n])
}

// suggestion is the first suggestion that extends what was typed.
func (f *field) suggestion() string {
	if fits := f.extending(f.text()); len(fits) > 0 {
		return fits[0]
	}
	return ""
}

// extending is the suggestions that begin with typed (in any case) and
// are longer.
func (f *field) extending(typed string) []string {
	var out []string
	for _, s := range f.suggestions {
		if strings.HasPrefix(strings.ToLower(s), strings.ToLower(typed)) && len(s) > len(typed) {
			out = append(out, s)
		}
	}
	return out
}
