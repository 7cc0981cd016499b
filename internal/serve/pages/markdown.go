package pages

import (
	"html"
	"html/template"
	"regexp"
	"strings"
)

// markdown renders the Markdown that checkpoint details are written in
// (a plan's <decision> and <how-to-verify>, a role's question) as HTML, in
// the subset they use: paragraphs, headings, bulleted and numbered lists
// (an item's indented lines belong to it), fenced code blocks, `code` and
// **bold**. Everything is escaped first: no tag, attribute or link of the
// text reaches the page, so an agent's text cannot script the dashboard.
func markdown(text string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var para []string // the lines of the paragraph being read
	list := ""        // "ul" or "ol" while a list is open
	item := false     // a list item is open
	closeItem := func() {
		if item {
			b.WriteString("</li>")
			item = false
		}
	}
	closeList := func() {
		closeItem()
		if list != "" {
			b.WriteString("</" + list + ">")
			list = ""
		}
	}
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, "\n")) + "</p>")
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") { // a language after it is not coloured
			flush()
			closeList()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>")
			continue
		}
		if trimmed == "" {
			flush()
			closeItem()
			continue
		}
		if level, title := heading(trimmed); level > 0 {
			flush()
			closeList()
			b.WriteString("<h4>" + inline(title) + "</h4>")
			continue
		}
		if kind, rest := listItem(line); kind != "" {
			flush()
			if kind != list {
				closeList()
				b.WriteString("<" + kind + ">")
				list = kind
			}
			closeItem()
			b.WriteString("<li>" + inline(rest))
			item = true
			continue
		}
		if item && (line[0] == ' ' || line[0] == '\t') {
			b.WriteString("<br>" + inline(trimmed)) // the open item's own line
			continue
		}
		closeList()
		para = append(para, trimmed)
	}
	flush()
	closeList()
	return template.HTML(b.String())
}

// heading returns a Markdown heading's level and text (0 when line is none).
func heading(line string) (int, string) {
	level := len(line) - len(strings.TrimLeft(line, "#"))
	if level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
		return 0, ""
	}
	return level, strings.TrimSpace(line[level:])
}

var orderedItem = regexp.MustCompile(`^\s{0,3}\d{1,9}[.)]\s+`)

// listItem returns "ul" or "ol" and the item's text when line starts a list
// item ("- a", "* a", "1. a"), else "".
func listItem(line string) (kind, rest string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", "" // indented further: a continuation, or code
	}
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if r, ok := strings.CutPrefix(t, bullet); ok {
			return "ul", strings.TrimSpace(r)
		}
	}
	if m := orderedItem.FindString(line); m != "" {
		return "ol", strings.TrimSpace(line[len(m):])
	}
	return "", ""
}

var bold = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)

// inline escapes s and renders its `code` spans and **bold**; the text of
// a code span is shown as written.
func inline(s string) string {
	var b strings.Builder
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unclosed backtick is a character, not a code span.
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		b.WriteString(strings.ReplaceAll(bold.ReplaceAllString(html.EscapeString(p), "<strong>$1</strong>"), "\n", "<br>"))
	}
	return b.String()
}
