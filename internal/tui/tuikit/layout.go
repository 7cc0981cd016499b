package tuikit

import (
	"strings"

	"charm.land/lipgloss/v2"
)

const (
	// MaxLog is how many log lines a screen keeps.
	MaxLog = 500
	// NarrowW is the width under which a screen is narrow: the dashboard
	// drops its tokens column, and the footers say ctrl+c in fewer words.
	NarrowW = 100
)

// Wrap is WrapText's lines joined: text for a terminal w cells wide.
func Wrap(s string, w int) string { return strings.Join(WrapText(s, w), "\n") }

// WrapText wraps styled text to w cells, at spaces where it can.
func WrapText(s string, w int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, WrapWords(l, max(1, w), 0)...)
	}
	return out
}

// JoinWrapped joins parts with sep into lines of at most w cells, breaking
// only between parts (a part wider than w is wrapped on its own).
func JoinWrapped(parts []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case lipgloss.Width(cur+sep+p) <= w:
			cur += sep + p
		default:
			lines = append(lines, cur)
			cur = p
		}
		if lipgloss.Width(cur) > w {
			wrapped := WrapText(cur, w)
			lines = append(lines, wrapped[:len(wrapped)-1]...)
			cur = wrapped[len(wrapped)-1]
		}
	}
	return append(lines, cur)
}

// Pad fills s with spaces to w cells.
func Pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

// PadLeft right-aligns s in w cells.
func PadLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-lipgloss.Width(s))) + s
}

// OneLine is s with its runs of white space, new lines included, one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
