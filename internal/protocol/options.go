package protocol

import (
	"regexp"
	"strings"
)

var (
	// "1. **supabase** - Built-in with our DB" (seed 000 §3.1, the sim)
	optBoldRe = regexp.MustCompile(`^(?:\d+[.)]|[-*•+])\s+\*\*([^*]+)\*\*\s*(.*)$`)
	// "- sqlite: embedded, no server"
	optDashRe = regexp.MustCompile("^[-*•+]\\s+`?([A-Za-z0-9][\\w.-]*)`?\\s*:\\s+(.+)$")
	// "[a] Use Postgres"
	optBracketRe = regexp.MustCompile(`\[([A-Za-z0-9][\w.-]*)\]\s*([^\[]*)`)
	optMarkerRe  = regexp.MustCompile(`(?i)^[#*\s]*options\b`)
)

// parseOptions reads the choices of a decision's details: numbered or
// bulleted items with a bold id (their indented lines, Pros and Cons, belong
// to them), "- id: description" bullets, "[a] …" lines and GSD's
// "| Option | Pros | Cons |" table. When the details have an "Options:"
// line only what follows it is read, so "**Decision:**" and "**Context:**"
// are never taken for options.
func parseOptions(details string) []Option {
	lines := strings.Split(details, "\n")
	for k, l := range lines {
		if optMarkerRe.MatchString(l) {
			lines = lines[k:]
			break
		}
	}
	var out []Option
	cur, curIndent := -1, 0 // the open bold item, whose indented lines follow
	for k := 0; k < len(lines); k++ {
		raw := lines[k]
		t := strings.TrimSpace(raw)
		ind := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if t == "" {
			continue
		}
		if cur >= 0 && ind > curIndent {
			out[cur].Text += "\n" + t
			continue
		}
		cur = -1
		if strings.HasPrefix(t, "|") {
			n, opts := optionTable(lines[k:])
			out = append(out, opts...)
			k += n - 1
			continue
		}
		if m := optBoldRe.FindStringSubmatch(t); m != nil {
			if id := strings.Trim(m[1], ":` "); id != "" {
				out = append(out, Option{ID: id, Name: strings.TrimSpace(strings.TrimLeft(m[2], "-–—: ")), Text: t})
				cur, curIndent = len(out)-1, ind
			}
			continue
		}
		if m := optDashRe.FindStringSubmatch(t); m != nil {
			out = append(out, Option{ID: m[1], Name: strings.TrimSpace(m[2]), Text: t})
			continue
		}
		if strings.HasPrefix(t, "[") || optMarkerRe.MatchString(t) {
			for _, m := range optBracketRe.FindAllStringSubmatch(t, -1) {
				out = append(out, Option{ID: m[1], Name: strings.TrimSpace(m[2]), Text: strings.TrimSpace(m[0])})
			}
		}
	}
	return out
}

// optionTable reads a table whose first column is the option id, naming
// each option by its other cells ("Pros: …; Cons: …"). It returns how many
// lines the table spans.
func optionTable(lines []string) (int, []Option) {
	n := 0
	for n < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[n]), "|") {
		n++
	}
	head, rows := tableRows(lines[:n])
	if len(head) == 0 {
		return n, nil
	}
	switch strings.ToLower(cellText(head[0])) {
	case "option", "options", "id", "choice":
	default:
		return n, nil
	}
	var out []Option
	for _, row := range rows {
		id := strings.Trim(cellText(row[0]), "[]` ")
		if id == "" {
			continue
		}
		var parts []string
		for i := 1; i < len(row); i++ {
			if c := cellText(row[i]); c != "" {
				if i < len(head) && cellText(head[i]) != "" {
					c = cellText(head[i]) + ": " + c
				}
				parts = append(parts, c)
			}
		}
		out = append(out, Option{ID: id, Name: strings.Join(parts, "; "), Text: "| " + strings.Join(row, " | ") + " |"})
	}
	return n, out
}
