package tracking

import "strings"

// line is one line of a document without its line ending; eol is "\n",
// "\r\n" or, for a last line without one, "". Keeping the ending apart lets
// the transforms edit a line's text and give it back the ending it had, so a
// CRLF file stays CRLF.
type line struct {
	text, eol string
}

// splitLines cuts s into lines; joinLines(splitLines(s)) == s.
func splitLines(s string) []line {
	var out []line
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, line{text: s})
			break
		}
		text, eol := s[:i], "\n"
		if strings.HasSuffix(text, "\r") {
			text, eol = text[:len(text)-1], "\r\n"
		}
		out = append(out, line{text: text, eol: eol})
		s = s[i+1:]
	}
	return out
}

func joinLines(ls []line) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.text)
		b.WriteString(l.eol)
	}
	return b.String()
}

// newline is the line ending that lines hive adds get: the file's own
// (CRLF when most of its lines end so), "\n" for a new file.
func newline(ls []line) string {
	crlf, lf := 0, 0
	for _, l := range ls {
		switch l.eol {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// insertLines puts add before ls[at], each ending with eol.
func insertLines(ls []line, at int, eol string, add ...string) []line {
	ins := make([]line, len(add))
	for i, t := range add {
		ins[i] = line{text: t, eol: eol}
	}
	out := append([]line{}, ls[:at]...)
	out = append(out, ins...)
	return append(out, ls[at:]...)
}

// heading reads a markdown ATX heading: its level (1–6) and text, or level 0.
func heading(s string) (int, string) {
	t := strings.TrimLeft(s, " ")
	if len(s)-len(t) > 3 {
		return 0, "" // indented four spaces: code, not a heading
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, ""
	}
	text := strings.TrimSpace(t[n:])
	text = strings.TrimSpace(strings.TrimRight(text, "#")) // closing sequence
	return n, text
}

// fence says whether s opens or closes a fenced code block (``` or ~~~).
func fence(s string) bool {
	t := strings.TrimLeft(s, " ")
	return len(s)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}

// codeLines marks the lines inside fenced code blocks (fences included):
// examples in a document are never edited.
func codeLines(ls []line) []bool {
	in := make([]bool, len(ls))
	open := false
	for i, l := range ls {
		if fence(l.text) {
			in[i] = true
			open = !open
			continue
		}
		in[i] = open
	}
	return in
}
