package tracking

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// cell is one cell of a markdown table row: the bytes [start, end) of the
// line between two pipes, padding included.
type cell struct{ start, end int }

// tableCells splits a table row into its cells as GitHub does: on pipes that
// are not escaped with a backslash, the outer pipes being optional. A line
// without a pipe is not a row (nil).
func tableCells(s string) []cell {
	var pipes []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // an escaped character, \| included, is cell content
		case '|':
			pipes = append(pipes, i)
		}
	}
	if len(pipes) == 0 {
		return nil
	}
	start := 0
	if strings.TrimSpace(s[:pipes[0]]) == "" {
		start, pipes = pipes[0]+1, pipes[1:] // leading pipe
	}
	end := len(s)
	if n := len(pipes); n > 0 && strings.TrimSpace(s[pipes[n-1]+1:]) == "" {
		end, pipes = pipes[n-1], pipes[:n-1] // trailing pipe
	}
	var cells []cell
	for _, p := range pipes {
		cells = append(cells, cell{start, p})
		start = p + 1
	}
	return append(cells, cell{start, end})
}

var delimiterCellRE = regexp.MustCompile(`^\s*:?-+:?\s*$`)

// delimiterRow says whether s is the |---|:--:| line under a table's header.
func delimiterRow(s string, cells []cell) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		if !delimiterCellRE.MatchString(s[c.start:c.end]) {
			return false
		}
	}
	return true
}

// cellEdit is a new content for one cell of a row.
type cellEdit struct {
	cell
	text string
	// width is the width of the column when the row is aligned with it, 0
	// when it is not.
	width int
}

// editCells writes the edits into the row s (cells from tableCells(s)),
// keeping every other byte. A cell keeps its leading space; a cell padded to
// line up with the other rows (as wide as its column, or with more than one
// trailing space) keeps its width where the new text fits, so an aligned
// table stays aligned.
func editCells(s string, edits []cellEdit) string {
	slices.SortFunc(edits, func(a, b cellEdit) int { return a.start - b.start })
	// Right to left, so that earlier offsets stay valid.
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		old := s[e.start:e.end]
		lead := old[:len(old)-len(strings.TrimLeft(old, " \t"))]
		trail := old[len(strings.TrimRight(old, " \t")):]
		if lead == old {
			trail = "" // a blank cell: its spaces are the lead
		}
		text := lead + e.text
		width := utf8.RuneCountInString(old)
		if len(trail) > 1 || (e.width > 0 && width == e.width) {
			pad := width - utf8.RuneCountInString(text)
			trail = strings.Repeat(" ", max(1, pad))
		} else if trail == "" && lead != "" {
			trail = " "
		}
		s = s[:e.start] + text + trail + s[e.end:]
	}
	return s
}
