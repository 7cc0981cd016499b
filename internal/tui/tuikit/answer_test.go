package tuikit

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/hivectl/hive/internal/testsupport/tuitest"
)

// TestTabCyclesCompletions: tab completes a typed answer to its first
// suggestion, and tab again cycles the completions (round).
func TestTabCyclesCompletions(t *testing.T) {
	f := field{focused: true, suggestions: []string{"allow", "deny", "always"}}
	var got []string
	f.update(tuitest.Press("a"))
	for range 3 {
		f.update(tuitest.Press("tab"))
		got = append(got, f.text())
	}
	if want := "allow always allow"; strings.Join(got, " ") != want {
		t.Errorf("a then tab, tab, tab gave %v, want %s", got, want)
	}
}

// TestShortBodyNeverScrolls: a question whose body is one line, short of
// room, shows that line, not a scroll marker that takes as much room.
func TestShortBodyNeverScrolls(t *testing.T) {
	b := NewAnswerBox("the role that asks", true).Ask(&Question{ID: 1, Rule: "interviewer asks", Title: "Where should the change be documented?",
		Body: []string{"decides what the documenter writes"}, Action: "→ YOUR ACTION: Select an option", Options: []string{"in the README", "on a page under docs/"}})
	lines, _ := b.View(80, 4)
	got := ansi.Strip(strings.Join(lines, "\n"))
	if strings.Contains(got, "↕") || !strings.Contains(got, "decides what the documenter writes") {
		t.Errorf("a one-line body short of room:\n%s", got)
	}
}
