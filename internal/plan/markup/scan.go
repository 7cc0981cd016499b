package markup

import (
	"sort"
	"strings"
)

// The body of a plan is not XML: it mixes XML-like tags with markdown and with
// code (Map<string, X>, a && b, i < n, <!-- comments -->, JSX). So instead of an
// XML decoder, a Scanner finds "<name attrs>" open tags and pairs each with the
// first "</name>" after it. A tag with no closing tag is plain text; that single
// rule makes generics, comparisons and stray tags harmless.

// Element is one XML-like element found in the text.
type Element struct {
	Name     string
	Attrs    map[string]string
	Start    int  // offset of the '<' of the open tag
	Inner    int  // offset just after the open tag
	InnerEnd int  // offset of the closing tag, or of the region end when unclosed
	End      int  // offset after the closing tag
	Closed   bool // false when no closing tag was found before the region end
}

// Text is the element's inner text in s, the text it was found in, trimmed.
func (e Element) Text(s string) string { return strings.TrimSpace(s[e.Inner:e.InnerEnd]) }

// Scanner indexes every closing tag of a text once, so that pairing open tags
// stays linear however many stray '<' the text holds.
type Scanner struct {
	text   string
	closes map[string][]int // tag name -> offsets of "</name>" in increasing order
	// unclosed remembers, per fence character, a fence found to have no closing
	// line: a later fence of that character at least as long has none either,
	// which keeps a text full of unclosed fences from making the scan quadratic.
	unclosed map[byte]fenceMiss
}

type fenceMiss struct{ at, n, to int }

// Text is the text s scans.
func (s *Scanner) Text() string { return s.text }

// NewScanner indexes text for Children.
func NewScanner(text string) *Scanner {
	s := &Scanner{text: text, closes: map[string][]int{}, unclosed: map[byte]fenceMiss{}}
	for i := 0; ; {
		j := strings.Index(text[i:], "</")
		if j < 0 {
			break
		}
		at := i + j
		k := at + 2
		for k < len(text) && isNameByte(text[k], k == at+2) {
			k++
		}
		name := text[at+2 : k]
		for k < len(text) && isSpace(text[k]) {
			k++
		}
		if name != "" && k < len(text) && text[k] == '>' {
			s.closes[name] = append(s.closes[name], at)
		}
		i = at + 2
	}
	return s
}

// closeOf returns the offset of the first "</name>" in [from, limit), or -1.
func (s *Scanner) closeOf(name string, from, limit int) int {
	offs := s.closes[name]
	i := sort.SearchInts(offs, from)
	if i < len(offs) && offs[i] < limit {
		return offs[i]
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case first:
		return false
	case c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == ':':
		return true
	}
	return false
}

// maxTagLen bounds an open tag; anything longer is prose that happens to hold '<'.
const maxTagLen = 4096

// openTag parses an open tag at s.text[i] (which is '<'). It returns the tag's
// name, attributes and the offset after '>'; ok is false when the text there is
// not a tag. Attribute values may be double-quoted, single-quoted or bare.
func (s *Scanner) openTag(i, limit int) (name string, attrs map[string]string, end int, selfClosing, ok bool) {
	t := s.text
	limit = min(limit, i+maxTagLen)
	k := i + 1
	for k < limit && isNameByte(t[k], k == i+1) {
		k++
	}
	name = t[i+1 : k]
	if name == "" || k >= limit || !(isSpace(t[k]) || t[k] == '>' || t[k] == '/') {
		return "", nil, 0, false, false
	}
	for {
		for k < limit && isSpace(t[k]) {
			k++
		}
		if k >= limit {
			return "", nil, 0, false, false
		}
		switch {
		case t[k] == '>':
			return name, attrs, k + 1, false, true
		case t[k] == '/' && k+1 < limit && t[k+1] == '>':
			return name, attrs, k + 2, true, true
		}
		a := k
		for k < limit && !isSpace(t[k]) && !strings.ContainsRune("=>/\"'<", rune(t[k])) {
			k++
		}
		if k == a {
			return "", nil, 0, false, false
		}
		key := t[a:k]
		for k < limit && isSpace(t[k]) {
			k++
		}
		val := ""
		if k < limit && t[k] == '=' {
			k++
			for k < limit && isSpace(t[k]) {
				k++
			}
			if k >= limit {
				return "", nil, 0, false, false
			}
			if q := t[k]; q == '"' || q == '\'' {
				e := strings.IndexByte(t[k+1:limit], q)
				if e < 0 {
					return "", nil, 0, false, false
				}
				val = t[k+1 : k+1+e]
				k += e + 2
			} else {
				v := k
				for k < limit && !isSpace(t[k]) && t[k] != '>' {
					k++
				}
				val = t[v:k]
			}
		}
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs[key] = val
	}
}

// Children returns the elements directly inside [from, to): every tag with a
// closing tag in range, plus the names in known even when unclosed (they then
// end where the next open tag of the same name starts, else at to). Comments are
// skipped; with fences, so are markdown code blocks, whose examples must not be
// read as plan structure.
func (s *Scanner) Children(from, to int, fences bool, known map[string]bool) []Element {
	var out []Element
	t := s.text
	fence := -2 // offset of the next fence opening at or after pos; -1 none; -2 unknown
	noCommentEnd := false
	for pos := from; pos < to; {
		lt := strings.IndexByte(t[pos:to], '<')
		if lt >= 0 {
			lt += pos
		}
		if fences {
			if fence != -1 && fence < pos {
				fence = s.nextFence(pos, to)
			}
			if fence >= 0 && (lt < 0 || fence < lt) {
				if e := s.fenceEnd(fence, to); e > 0 {
					pos = e
				} else {
					_, pos = LineAt(t[:to], fence)
				}
				continue
			}
		}
		if lt < 0 {
			break
		}
		if strings.HasPrefix(t[lt:to], "<!--") {
			if !noCommentEnd {
				if e := strings.Index(t[lt+4:to], "-->"); e >= 0 {
					pos = lt + 4 + e + 3
					continue
				}
				noCommentEnd = true // and none after a later "<!--" either
			}
			pos = lt + 4 // an unclosed comment hides nothing: read on as text
			continue
		}
		name, attrs, end, self, ok := s.openTag(lt, to)
		if !ok {
			pos = lt + 1
			continue
		}
		el := Element{Name: name, Attrs: attrs, Start: lt, Inner: end}
		switch c := s.closeOf(name, end, to); {
		case self:
			el.InnerEnd, el.End, el.Closed = end, end, true
		case c >= 0:
			el.InnerEnd, el.Closed = c, true
			el.End = c + 2 + len(name)
			for el.End < to && t[el.End] != '>' {
				el.End++
			}
			el.End = min(el.End+1, to)
		case known[name]:
			el.InnerEnd = s.NextOpen(name, end, to)
			el.End = el.InnerEnd
		default:
			pos = lt + 1
			continue
		}
		out = append(out, el)
		pos = el.End
	}
	return out
}

// NextOpen returns the offset of the next open tag named name in [from, to), or to.
func (s *Scanner) NextOpen(name string, from, to int) int {
	for pos := from; pos < to; {
		i := strings.Index(s.text[pos:to], "<"+name)
		if i < 0 {
			break
		}
		if n, _, _, _, ok := s.openTag(pos+i, to); ok && n == name {
			return pos + i
		}
		pos += i + 1
	}
	return to
}

// fenceAt reports whether the line starting at off is a code fence line,
// returning the fence character and its length (0, 0 when it is not).
func fenceAt(t string, off, to int) (byte, int) {
	k := off
	for k < to && k-off < 3 && t[k] == ' ' {
		k++
	}
	if k >= to || (t[k] != '`' && t[k] != '~') {
		return 0, 0
	}
	c, n := t[k], 0
	for k+n < to && t[k+n] == c {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return c, n
}

// nextFence returns the offset of the next line at or after pos that opens a
// fence, or -1. pos need not be a line start; a fence must be.
func (s *Scanner) nextFence(pos, to int) int {
	t := s.text
	for pos < to {
		if pos == 0 || t[pos-1] == '\n' {
			if c, _ := fenceAt(t, pos, to); c != 0 {
				return pos
			}
		}
		i := strings.IndexByte(t[pos:to], '\n')
		if i < 0 {
			return -1
		}
		pos += i + 1
	}
	return -1
}

// fenceEnd returns the offset after the line that closes the fence opened at
// off, or 0 when the fence is never closed before to.
func (s *Scanner) fenceEnd(off, to int) int {
	t := s.text
	c, n := fenceAt(t, off, to)
	if m, ok := s.unclosed[c]; ok && n >= m.n && off >= m.at && to <= m.to {
		return 0
	}
	_, pos := LineAt(t[:to], off)
	for pos < to {
		line, next := LineAt(t[:to], pos)
		if cc, nn := fenceAt(t, pos, pos+len(line)); cc == c && nn >= n {
			rest := strings.TrimLeft(line, " ")[nn:]
			if strings.TrimSpace(rest) == "" {
				return next
			}
		}
		pos = next
	}
	s.unclosed[c] = fenceMiss{at: off, n: n, to: to}
	return 0
}
