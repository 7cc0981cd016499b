package tuikit

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The seed formats are markdown: the checkpoint queue ("### 1 of 2",
// "**Plan:**"), what agents write in a checkpoint's details ("**json-file**",
// lists), the phase report after a run (headings, a table). On a terminal
// they are rendered: the markers go, bold and headings are styled, lists
// get bullets and tables line up. Plain output (pipes, logs, --no-tui)
// keeps the markdown as the seeds write it.

var (
	stHeading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	stCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	stItalic  = lipgloss.NewStyle().Italic(true)

	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdBullet  = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
	mdRule    = regexp.MustCompile(`^\s*(?:-{3,}|\*{3,}|_{3,})\s*$`)
	mdBold    = regexp.MustCompile(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	mdCode    = regexp.MustCompile("`([^`\n]+)`")
	mdItalic  = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*\n]*?)\*([\s).,:;!?]|$)`)
)

// RenderMarkdown renders markdown text for a terminal: headings, bold,
// italic, code spans, bullets, rules and tables, with styles and without
// their markers. Text lines are wrapped to width (a list item under its
// text), and so are a table's widest cells when the table is wider; width
// 0 wraps nothing.
func RenderMarkdown(text string, width int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if isTableRow(lines[i]) {
			j := i
			for j < len(lines) && isTableRow(lines[j]) {
				j++
			}
			out = append(out, renderTable(lines[i:j], width)...)
			i = j - 1
			continue
		}
		out = append(out, WrapHanging(MarkdownLine(lines[i]), width)...)
	}
	return strings.Join(out, "\n") + "\n"
}

// MarkdownLine renders one line of markdown: a heading, a bullet, a rule,
// or text with inline bold, italic and code.
func MarkdownLine(l string) string {
	if m := mdHeading.FindStringSubmatch(l); m != nil {
		if len(m[1]) <= 2 {
			return stHeading.Render(stripInline(m[2]))
		}
		return StBold.Render(stripInline(m[2]))
	}
	if mdRule.MatchString(l) {
		return StRule.Render(strings.Repeat("─", 20))
	}
	if m := mdBullet.FindStringSubmatch(l); m != nil {
		return m[1] + "• " + Inline(m[2])
	}
	return Inline(l)
}

// Inline renders **bold**, __bold__, *italic* and `code` spans.
func Inline(s string) string {
	s = mdCode.ReplaceAllStringFunc(s, func(c string) string { return stCode.Render(c[1 : len(c)-1]) })
	s = mdBold.ReplaceAllStringFunc(s, func(b string) string { return StBold.Render(b[2 : len(b)-2]) })
	return mdItalic.ReplaceAllString(s, "${1}"+stItalic.Render("${2}")+"${3}")
}

// stripInline drops inline markers from text that gets a style of its own.
func stripInline(s string) string {
	s = mdBold.ReplaceAllString(s, "$1$2")
	return mdCode.ReplaceAllString(s, "$1")
}

func isTableRow(l string) bool {
	t := strings.TrimSpace(l)
	return len(t) > 1 && strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|")
}

var mdTableRule = regexp.MustCompile(`^\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*$`)

// renderTable lines up a markdown table's columns: the header bold, a rule
// under it, the cells rendered inline. When the table is wider than width
// (0: no limit), its widest column is narrowed and its cells wrap.
func renderTable(rows []string, width int) []string {
	var cells [][]string
	header := -1
	for i, r := range rows {
		if mdTableRule.MatchString(r) {
			if i == 1 {
				header = 0
			}
			continue
		}
		t := strings.TrimSpace(r)
		parts := strings.Split(t[1:len(t)-1], "|")
		row := make([]string, len(parts))
		for k, p := range parts {
			row[k] = Inline(strings.TrimSpace(p))
		}
		cells = append(cells, row)
	}
	var widths []int
	for _, row := range cells {
		for k, c := range row {
			if k >= len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], lipgloss.Width(c))
		}
	}
	total := 0
	for _, w := range widths {
		total += w + 2
	}
	if width > 0 && total > width && len(widths) > 0 {
		widest := 0
		for k, w := range widths {
			if w > widths[widest] {
				widest = k
			}
		}
		widths[widest] = max(8, widths[widest]-(total-width))
	}
	var out []string
	for i, row := range cells {
		// A row is as many lines as its most wrapped cell.
		wrapped := make([][]string, len(row))
		height := 1
		for k, c := range row {
			if i == header {
				c = StBold.Render(c)
			}
			wrapped[k] = WrapWords(c, widths[k], 0)
			height = max(height, len(wrapped[k]))
		}
		for l := range height {
			var b strings.Builder
			for k := range row {
				c := ""
				if l < len(wrapped[k]) {
					c = wrapped[k][l]
				}
				b.WriteString(" " + Pad(c, widths[k]) + " ")
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if i == header {
			var r strings.Builder
			for _, w := range widths {
				r.WriteString(" " + StRule.Render(strings.Repeat("─", w)) + " ")
			}
			out = append(out, strings.TrimRight(r.String(), " "))
		}
	}
	return out
}

var listLead = regexp.MustCompile(`^\s*(?:• |\d+\. )`)

// WrapHanging wraps a rendered line to width, the lines after the first
// indented under the text of a list item; width 0 leaves it whole.
func WrapHanging(l string, width int) []string {
	hang := 0
	if m := listLead.FindString(ansi.Strip(l)); m != "" {
		hang = lipgloss.Width(strings.TrimLeft(m, " "))
	}
	return WrapWords(l, width, hang)
}

// WrapWords wraps styled text to width cells at spaces only (ansi.Wrap
// would also break "01-03" and "hive/01/01-03" at their hyphens); a word
// wider than the line is broken. The lines after the first keep the
// text's leading spaces, plus hang. Width 0 leaves the text whole.
func WrapWords(s string, width, hang int) []string {
	if width <= 0 || lipgloss.Width(s) <= width {
		return []string{s}
	}
	lead := len(s) - len(strings.TrimLeft(s, " "))
	indent := lead + hang
	if indent > width/2 {
		lead, indent = 0, 0
	}
	first, more := s[:lead], strings.Repeat(" ", indent)
	var lines []string
	cur, curW, empty := first, lead, true
	for _, word := range strings.Split(s[lead:], " ") {
		ww := lipgloss.Width(word)
		if !empty && curW+1+ww > width {
			lines = append(lines, cur)
			cur, curW, empty = more, indent, true
		}
		if empty && word == "" {
			continue // the spaces at a break
		}
		if !empty {
			cur, curW = cur+" ", curW+1
		}
		if curW+ww > width { // a word longer than a line
			pieces := strings.Split(ansi.Hardwrap(word, width-curW, false), "\n")
			for _, p := range pieces[:len(pieces)-1] {
				lines = append(lines, cur+p)
				cur, curW = more, indent
			}
			word, ww = pieces[len(pieces)-1], lipgloss.Width(pieces[len(pieces)-1])
		}
		cur, curW, empty = cur+word, curW+ww, false
	}
	return append(lines, cur)
}

// HeadingText is a "### …" line's text.
func HeadingText(l string) string {
	if m := mdHeading.FindStringSubmatch(l); m != nil {
		return m[2]
	}
	return l
}
