package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Parse and its parser read a handoff that Render wrote: the test's check
// that the file keeps the shape seed 001's rehydrate skill reads. hive
// itself never reads one back (the journal is the truth).

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// Parse reads a handoff that Render wrote (blank lines and trailing spaces
// aside). A file that is not in that shape, or whose Review Tracking does not
// agree with its In Progress list, gives an error that names the line and
// what was expected there: a resumed run must not guess which checks passed.
func Parse(b []byte) (Handoff, error) {
	p := &parser{lines: strings.Split(string(b), "\n")}
	var h Handoff

	const title = `the title "# Phase N Handoff"`
	if h.Phase = p.want("# Phase ", " Handoff", title); h.Phase == "" {
		p.fail("expected %s with a phase number", title) // rehydrate needs it
	}
	if stamp := p.want("**Checkpoint time:** ", "", `"**Checkpoint time:** " and a time`); p.err == nil {
		t, err := time.Parse(time.RFC3339, stamp)
		if err != nil {
			p.fail("expected an RFC 3339 time such as 2026-01-26T10:30:00Z, got %q", stamp)
		}
		h.Time = t.UTC()
	}
	h.PlanPath = p.want("**Plan path:** ", "", `"**Plan path:** " and the phase folder`)

	p.want("## Team Composition", "", `"## Team Composition"`)
	if w := p.want("- Workers: ", "", `"- Workers: " and the executors`); w != "" && w != "(none)" {
		h.Workers = strings.Split(w, ", ")
	}
	for p.err == nil && strings.HasPrefix(p.peek(), "- Reviewer: ") {
		h.Reviewers = append(h.Reviewers, p.want("- Reviewer: ", "", "a reviewer"))
	}

	p.want("## Task State", "", `"## Task State"`)
	for _, s := range sections(&h) {
		*s.items = p.items(s.title)
	}

	p.want("## Review Tracking", "", `"## Review Tracking"`)
	p.want("```json", "", "the opening ```json of the review tracking")
	p.tracking(h.InProgress)

	p.want("## Notes", "", `"## Notes"`)
	for p.err == nil {
		line, ok := p.next()
		if !ok {
			break
		}
		note, ok := strings.CutPrefix(line, "- ")
		if !ok {
			p.fail(`expected a note, "- " and text, got %q`, line)
		}
		h.Notes = append(h.Notes, note)
	}
	if slices.Equal(h.Notes, []string{"(none)"}) {
		h.Notes = nil
	}

	if p.err != nil {
		return Handoff{}, p.err
	}
	return h, nil
}

// parser reads the file a line at a time and keeps the first error, so that
// Parse reads as the file does rather than as a ladder of error checks.
type parser struct {
	lines []string
	n     int // lines consumed
	num   int // the number of the line last read, for errors
	err   error
}

func trim(line string) string { return strings.TrimRight(line, " \t\r") }

// next reads the next line that is not blank; ok is false at the end of the
// file or once an error has been found.
func (p *parser) next() (line string, ok bool) {
	for p.err == nil && p.n < len(p.lines) {
		line := trim(p.lines[p.n])
		p.n++
		if line != "" {
			p.num = p.n
			return line, true
		}
	}
	p.num = len(p.lines)
	return "", false
}

// peek is the next line that is not blank, without reading it.
func (p *parser) peek() string {
	for _, line := range p.lines[p.n:] {
		if line := trim(line); line != "" {
			return line
		}
	}
	return ""
}

// fail records an error at the line last read, unless one came before.
func (p *parser) fail(format string, args ...any) {
	p.failAt(p.num, format, args...)
}

func (p *parser) failAt(num int, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("handoff: line %d: %s", num, fmt.Sprintf(format, args...))
	}
}

// want reads the next line, which must start with prefix and end with suffix,
// and returns what lies between them; what says, for the error, what the line
// should have been.
func (p *parser) want(prefix, suffix, what string) string {
	line, ok := p.next()
	if !ok {
		p.fail("expected %s, got the end of the file", what)
		return ""
	}
	if line == trim(prefix+suffix) {
		return "" // the line is there, its value empty
	}
	rest, ok1 := strings.CutPrefix(line, prefix)
	rest, ok2 := strings.CutSuffix(rest, suffix)
	if !ok1 || !ok2 {
		p.fail("expected %s, got %q", what, line)
		return ""
	}
	return rest
}

// items reads one list of Task State: its heading, then its plans, each with
// its indented details.
func (p *parser) items(title string) []Item {
	p.want("### "+title, "", strconv.Quote("### "+title))
	if p.peek() == "- (none)" {
		p.next()
		return nil
	}
	var items []Item
	for p.err == nil && strings.HasPrefix(p.peek(), "- ") {
		line, _ := p.next()
		it := p.item(line)
		for p.err == nil && strings.HasPrefix(p.peek(), "  - ") {
			line, _ := p.next()
			label, value, ok := strings.Cut(strings.TrimPrefix(line, "  - "), ": ")
			switch {
			case !ok || value == "":
				p.fail(`expected "  - Owner: …", "  - Task: …" or "  - Review: state" under plan %s, got %q`, it.ID, line)
			case label == "Owner":
				it.Owner = value
			case label == "Task":
				it.Task = value
			case value != Pending && value != Passed && value != Failed:
				p.fail("expected the %s review of plan %s to be pending, passed or failed, got %q", label, it.ID, value)
			default:
				name := lowerFirst(label)
				if _, dup := it.Reviews[name]; dup {
					p.fail("plan %s has the %s review twice", it.ID, label)
				}
				if it.Reviews == nil {
					it.Reviews = map[string]string{}
				}
				it.Reviews[name] = value
			}
		}
		items = append(items, it)
	}
	return items
}

// item reads "- Plan 03-01: Name (2/5 tasks)".
func (p *parser) item(line string) Item {
	const what = `a plan, "- Plan ID: Name (done/total tasks)"`
	rest, ok := strings.CutPrefix(line, "- Plan ")
	id, rest, ok2 := strings.Cut(rest, ": ")
	i := strings.LastIndex(rest, "(")
	if !ok || !ok2 || id == "" || i < 0 {
		p.fail("expected %s, got %q", what, line)
		return Item{}
	}
	counts, ok := strings.CutSuffix(rest[i+1:], " tasks)")
	d, t, ok2 := strings.Cut(counts, "/")
	done, err1 := strconv.Atoi(d)
	total, err2 := strconv.Atoi(t)
	if !ok || !ok2 || err1 != nil || err2 != nil {
		p.fail("expected %s, got %q", what, line)
		return Item{}
	}
	return Item{ID: id, Name: strings.TrimSuffix(rest[:i], " "), Done: done, Total: total}
}

// tracking reads the JSON block up to its closing fence and checks it against
// the In Progress list: the two say the same thing, one for people and one
// for programs, and a file where they differ was edited by hand in one place.
func (p *parser) tracking(inProgress []Item) {
	if p.err != nil {
		return
	}
	fence := p.num
	var block []string
	for {
		if p.n == len(p.lines) {
			p.num = len(p.lines)
			p.fail("expected the closing ``` of the review tracking that line %d opens, got the end of the file", fence)
			return
		}
		line := p.lines[p.n]
		p.n++
		p.num = p.n
		if trim(line) == "```" {
			break
		}
		block = append(block, line)
	}
	text := strings.Join(block, "\n")
	// lineOf is the file's line of a byte offset into the block.
	lineOf := func(offset int64) int {
		return fence + 1 + strings.Count(text[:min(int(offset), len(text))], "\n")
	}

	var t map[string]map[string]string
	if err := json.Unmarshal([]byte(text), &t); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		num := fence
		switch {
		case errors.As(err, &syntax):
			num = lineOf(syntax.Offset)
		case errors.As(err, &typ):
			num = lineOf(typ.Offset)
		}
		p.failAt(num, `expected review tracking as a JSON object, {"plan-ID": {"worker": …, "review": "state"}}: %v`, err)
		return
	}
	keyLine := func(key string) int {
		if i := strings.Index(text, strconv.Quote(key)); i >= 0 {
			return lineOf(int64(i))
		}
		return fence
	}
	for _, it := range inProgress {
		key := "plan-" + it.ID
		got, ok := t[key]
		if !ok {
			p.failAt(fence, "expected review tracking for %s, which is in progress", key)
			return
		}
		delete(t, key)
		if want := entry(it); !maps.Equal(got, want) {
			p.failAt(keyLine(key), "expected review tracking of %s to agree with the In Progress list, %v, got %v", key, want, got)
			return
		}
	}
	if len(t) > 0 {
		key := slices.Sorted(maps.Keys(t))[0]
		p.failAt(keyLine(key), "expected review tracking only for plans in progress, got %s", key)
	}
}
