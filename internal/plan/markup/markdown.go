package markup

import (
	"regexp"
	"strings"
)

// Heading is one ATX markdown heading outside code fences.
type Heading struct {
	Level int
	Text  string
	Off   int // offset of the heading line
	Body  int // offset of the line after it
}

// Headings lists the "#"-headings of text in order, ignoring fenced code so that
// shell comments in examples are not taken for sections.
func Headings(text string) []Heading {
	var out []Heading
	var fc byte
	var fn int
	for off := 0; off < len(text); {
		line, next := LineAt(text, off)
		if c, n := fenceAt(text, off, off+len(line)); c != 0 {
			switch {
			case fc == 0:
				fc, fn = c, n
			case c == fc && n >= fn && strings.TrimSpace(strings.TrimLeft(line, " ")[n:]) == "":
				fc = 0
			}
			off = next
			continue
		}
		if fc == 0 {
			if lvl, txt, ok := atxHeading(line); ok {
				out = append(out, Heading{Level: lvl, Text: txt, Off: off, Body: next})
			}
		}
		off = next
	}
	return out
}

func atxHeading(line string) (int, string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	txt := strings.TrimSpace(t[n:])
	txt = strings.TrimSpace(strings.TrimRight(txt, "#"))
	return n, txt, true
}

// SectionEnd returns where the section of hs[i] ends: at the next heading of the
// same or a higher level, else at end.
func SectionEnd(hs []Heading, i, end int) int {
	for _, h := range hs[i+1:] {
		if h.Level <= hs[i].Level {
			return h.Off
		}
	}
	return end
}

// labelRE matches the bold labels of older plans: "**Files:** x", "- **Verify**: y".
var labelRE = regexp.MustCompile(`^\s{0,3}(?:[-*+]\s+)?\*\*([A-Za-z][A-Za-z0-9 _/-]{0,40}?)\s*(?::\*\*|\*\*\s*:)[ \t]*(.*)$`)

// Labelled splits a section into its bold-labelled parts, keyed by the label in
// lower case; text before the first label is returned as preamble.
func Labelled(text string) (preamble string, parts []*LabelPart) {
	var cur *LabelPart
	var pre strings.Builder
	inFence := false
	for off := 0; off < len(text); {
		line, next := LineAt(text, off)
		if c, _ := fenceAt(text, off, off+len(line)); c != 0 {
			inFence = !inFence
		}
		if m := labelRE.FindStringSubmatch(line); m != nil && !inFence {
			cur = &LabelPart{Label: strings.ToLower(strings.TrimSpace(m[1])), off: off}
			parts = append(parts, cur)
			cur.Text.WriteString(m[2])
			cur.Text.WriteByte('\n')
		} else if cur != nil {
			cur.Text.WriteString(line)
			cur.Text.WriteByte('\n')
		} else {
			pre.WriteString(line)
			pre.WriteByte('\n')
		}
		off = next
	}
	return strings.TrimSpace(pre.String()), parts
}

// LabelPart is one bold-labelled part of a section: its label, in lower
// case, and its text.
type LabelPart struct {
	Label string
	off   int
	Text  strings.Builder
}

// SplitFiles reads a <files> or **Files:** value: paths separated by commas or
// newlines, in backticks or bullets, often annotated ("src/a.ts (new)",
// "`src/b.ts` — the store").
func SplitFiles(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for _, f := range strings.Split(line, ",") {
			if f = CleanFile(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// CleanFile reads one path of a file list, without the bullet, backticks
// and annotations around it.
func CleanFile(f string) string {
	f = strings.TrimSpace(f)
	for _, bullet := range []string{"- ", "* ", "+ "} {
		f = strings.TrimSpace(strings.TrimPrefix(f, bullet))
	}
	if strings.HasPrefix(f, "`") {
		// The path is the code span; whatever follows it is commentary.
		if e := strings.IndexByte(f[1:], '`'); e >= 0 {
			return strings.TrimSpace(f[1 : 1+e])
		}
		f = f[1:]
	}
	// "src/backups/ directory": words after a folder's slash describe it (a
	// name that starts with a space is no file's).
	if i := strings.Index(f, "/ "); i > 0 {
		f = f[:i+1]
	}
	for _, sep := range []string{" (", " — ", " – ", " - ", ": ", " #", "\t"} {
		if i := strings.Index(f, sep); i > 0 {
			f = f[:i]
		}
	}
	return strings.TrimSpace(strings.Trim(f, "`*"))
}

// LineAt returns the line starting at off (without its newline) and the offset of
// the next line.
func LineAt(text string, off int) (string, int) {
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		return text[off : off+i], off + i + 1
	}
	return text[off:], len(text)
}
