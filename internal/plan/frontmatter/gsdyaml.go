package frontmatter

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// GSD reads frontmatter with its own line-based reader
// (get-shit-done/bin/lib/frontmatter.cjs, extractFrontmatter), not with a
// YAML library: it takes "key: value" lines by indentation and keeps the
// value as written, minus one quote at each end. So plans that GSD runs
// every day hold text strict YAML refuses: escapes such as "\s" or
// "buildRowLayout\(" inside double quotes (a regular expression, meant
// verbatim), or unquoted values holding ": " (pattern: --background|colors:).
// gsdFrontmatter reads such a frontmatter the same way, and builds the YAML
// nodes the rest of the package reads, so that the strict and the lenient
// reading share every other rule. It is used only where strict YAML fails.

// gsdLine is one line of a frontmatter.
type gsdLine struct {
	n      int    // 1-based line number within the frontmatter
	indent int    // leading blanks; a tab counts as one, as in GSD
	text   string // the line without its indentation and trailing blanks
}

// gsdReader walks the lines of one frontmatter.
type gsdReader struct {
	lines []gsdLine
	i     int
	bad   int // first line that cannot be read, 0 when none
}

var (
	// gsdKeyRE is a "key: value" line of a mapping. Like GSD, a value may
	// follow the colon without a blank (wave:2).
	gsdKeyRE = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]+(.*)|(\S.*))?$`)
	// gsdItemKeyRE is the "key: value" that opens a mapping inside a list
	// item ("- path: src/a.ts"). Here the blank after the colon is required,
	// as in GSD's must_haves reader, so that "- Class::method" or
	// "- http://host" stay text.
	gsdItemKeyRE = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]+(.*))?$`)
	// blockScalarRE is the "|" or ">" that opens a block of text.
	blockScalarRE = regexp.MustCompile(`^[|>][-+0-9]*$`)
)

// gsdFrontmatter reads src (the frontmatter without its --- fences) line by
// line. It returns the top-level mapping, or the first line (1-based within
// src) that neither YAML nor GSD's reader can make sense of.
func gsdFrontmatter(src string) (*yaml.Node, int) {
	r := &gsdReader{}
	for i, raw := range strings.Split(src, "\n") {
		t := strings.TrimRight(raw, " \t\r")
		body := strings.TrimLeft(t, " \t")
		r.lines = append(r.lines, gsdLine{n: i + 1, indent: len(t) - len(body), text: body})
	}
	l, ok := r.peek()
	if !ok {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, 0
	}
	if isItem(l.text) {
		return nil, l.n // a list: strict YAML reads those, so it failed for another reason
	}
	m := r.mapping(l.indent)
	for {
		l, ok := r.peek()
		if !ok {
			break
		}
		r.fail(l.n) // a line less indented than the first key
		r.i++
	}
	if r.bad > 0 {
		return nil, r.bad
	}
	return m, 0
}

func (r *gsdReader) fail(n int) {
	if r.bad == 0 {
		r.bad = n
	}
}

// peek returns the next line holding something other than blanks or a comment.
func (r *gsdReader) peek() (gsdLine, bool) {
	for r.i < len(r.lines) {
		l := r.lines[r.i]
		if l.text != "" && !strings.HasPrefix(l.text, "#") {
			return l, true
		}
		r.i++
	}
	return gsdLine{}, false
}

func isItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// mapping reads "key: value" lines indented exactly indent.
func (r *gsdReader) mapping(indent int) *yaml.Node {
	first, _ := r.peek()
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: first.n, Column: indent + 1}
	for {
		l, ok := r.peek()
		if !ok || l.indent < indent {
			return m
		}
		mt := gsdKeyRE.FindStringSubmatch(l.text)
		if l.indent > indent || mt == nil {
			if l.indent == indent && isItem(l.text) {
				return m // a list at the level of its key ends the key's value
			}
			r.fail(l.n)
			r.i++
			continue
		}
		r.i++
		key := unquote(mt[1])
		rest := mt[2] + mt[3]
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: l.n, Column: indent + 1},
			r.value(rest, l, indent, true))
	}
}

// sequence reads "- item" lines indented exactly indent.
func (r *gsdReader) sequence(indent int) *yaml.Node {
	first, _ := r.peek()
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: first.n, Column: indent + 1}
	for {
		l, ok := r.peek()
		if !ok || l.indent != indent || !isItem(l.text) {
			return s
		}
		content := strings.TrimPrefix(l.text, "-")
		trimmed := strings.TrimLeft(content, " \t")
		col := indent + 1 + len(content) - len(trimmed)
		switch {
		case trimmed == "":
			r.i++
			s.Content = append(s.Content, r.value("", l, indent, false))
		case gsdItemKeyRE.MatchString(trimmed) || isItem(trimmed):
			// "- path: x" opens a mapping whose later keys line up with
			// "path"; "- - x" a nested list. Read the rest of the line as a
			// line of its own at that column.
			r.lines[r.i] = gsdLine{n: l.n, indent: col, text: trimmed}
			if isItem(trimmed) {
				s.Content = append(s.Content, r.sequence(col))
			} else {
				s.Content = append(s.Content, r.mapping(col))
			}
		default:
			r.i++
			s.Content = append(s.Content, r.value(trimmed, l, indent, false))
		}
	}
}

// value reads what follows "key:" or "- " on line l, indented parent: the
// rest of the line, or the more indented lines below it.
func (r *gsdReader) value(rest string, l gsdLine, parent int, inMapping bool) *yaml.Node {
	switch {
	case rest == "" || strings.HasPrefix(rest, "#"):
		next, ok := r.peek()
		switch {
		case ok && next.indent > parent:
			if isItem(next.text) {
				return r.sequence(next.indent)
			}
			return r.mapping(next.indent)
		case ok && inMapping && next.indent == parent && isItem(next.text):
			return r.sequence(parent) // key:\n- a\n- b
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: l.n}
	case blockScalarRE.MatchString(strings.Fields(rest)[0]):
		return r.blockScalar(rest[0] == '>', l, parent)
	case rest[0] == '[' || rest[0] == '{':
		return r.flow(rest, l, parent)
	}
	// A plain or quoted value may go on over more indented lines.
	text := rest
	for {
		next, ok := r.peek()
		if !ok || next.indent <= parent {
			break
		}
		text += " " + next.text
		r.i++
	}
	return gsdScalar(text, l.n)
}

// blockScalar reads the lines of a "|" (kept) or ">" (folded) text block.
func (r *gsdReader) blockScalar(folded bool, l gsdLine, parent int) *yaml.Node {
	var lines []string
	indent := -1
	for r.i < len(r.lines) {
		next := r.lines[r.i]
		if next.text != "" && next.indent <= parent {
			break
		}
		if next.text != "" && indent < 0 {
			indent = next.indent
		}
		pad := ""
		if next.text != "" && next.indent > indent {
			pad = strings.Repeat(" ", next.indent-indent)
		}
		lines = append(lines, pad+next.text)
		r.i++
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	sep := "\n"
	if folded {
		sep = " "
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(lines, sep), Line: l.n}
}

// flow reads a "[a, b]" or "{k: v}" value, which may span several lines.
// Strict YAML reads it when it can; otherwise a list is split on the commas
// outside quotes, as GSD does, and a mapping is kept as text.
func (r *gsdReader) flow(rest string, l gsdLine, parent int) *yaml.Node {
	text := rest
	for !flowClosed(text) {
		next, ok := r.peek()
		if !ok || next.indent <= parent {
			r.fail(l.n) // never closed: nothing says where the value ends
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: l.n}
		}
		text += " " + next.text
		r.i++
	}
	var doc yaml.Node
	if err := safeUnmarshal(text, &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind != yaml.AliasNode {
		n := doc.Content[0]
		setLine(n, l.n, 0)
		return n
	}
	if text[0] == '{' {
		return gsdScalar(text, l.n)
	}
	s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: l.n}
	inner := strings.TrimSpace(text[1:strings.LastIndexByte(text, ']')])
	for _, it := range splitFlowItems(inner) {
		s.Content = append(s.Content, gsdScalar(it, l.n))
	}
	return s
}

// flowClosed reports whether every bracket opened in text, outside quotes,
// is closed.
func flowClosed(text string) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth <= 0
}

// splitFlowItems splits the inside of "[...]" on the commas outside quotes.
func splitFlowItems(s string) []string {
	var items []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ',':
			if it := strings.TrimSpace(s[start:i]); it != "" {
				items = append(items, it)
			}
			start = i + 1
		}
	}
	if it := strings.TrimSpace(s[start:]); it != "" {
		items = append(items, it)
	}
	return items
}

// setLine moves the lines of a node parsed on its own to line n of the
// frontmatter (a flow value's node numbers its lines from 1).
func setLine(node *yaml.Node, n, depth int) {
	if node == nil || depth > 64 {
		return
	}
	node.Line = n
	for _, c := range node.Content {
		setLine(c, n, depth+1)
	}
}

// gsdScalar makes the node of one value. A value strict YAML reads as a
// single scalar keeps YAML's meaning (so 3 is a number and "a\tb" holds a
// tab); anything else is taken as written, minus one quote at each end, as
// GSD takes it.
func gsdScalar(text string, line int) *yaml.Node {
	text = strings.TrimSpace(text)
	quoted := text != "" && (text[0] == '"' || text[0] == '\'')
	if !quoted {
		if i := strings.Index(text, " #"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
	}
	if text == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: line}
	}
	var doc yaml.Node
	if err := safeUnmarshal(text, &doc); err == nil && len(doc.Content) == 1 {
		if n := doc.Content[0]; n.Kind == yaml.ScalarNode && (n.Tag == "" || strings.HasPrefix(n.Tag, "!!")) {
			n.Line, n.Column = line, 0
			return n
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(text), Line: line}
}

// unquote drops one quote character at each end, as GSD's reader does
// (value.replace(/^["']|["']$/g, ”)); escapes are kept as written.
func unquote(s string) string {
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		s = s[1:]
	}
	if s != "" && (s[len(s)-1] == '"' || s[len(s)-1] == '\'') {
		s = s[:len(s)-1]
	}
	return s
}
