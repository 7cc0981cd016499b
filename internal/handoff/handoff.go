package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The states of one review of a plan.
const (
	Pending = "pending"
	Passed  = "passed"
	Failed  = "failed"
)

// Handoff is the state of a paused phase, as seed 001's handoff.md shows it.
type Handoff struct {
	Phase     string    // phase number, e.g. "03"
	Time      time.Time // when the pause happened; rendered in UTC, to the second
	PlanPath  string    // the phase folder, e.g. ".planning/phases/03-auth"
	Workers   []string  // the team: executor names, e.g. "executor-03-01"
	Reviewers []string  // hive's checks that review work, e.g. "spot-check", "merge", "post-merge gate", "verifier"

	Completed  []Item
	InProgress []Item
	Pending    []Item

	Notes []string // one line each: what the resumed run should know
}

// Item is one plan of the phase.
type Item struct {
	ID    string // the plan, e.g. "03-02"
	Name  string
	Done  int    // tasks done
	Total int    // tasks in the plan
	Owner string // the executor running the plan, for a plan in progress
	// Reviews holds, by check name (in lower case, as in Handoff.Reviewers),
	// whether that check of the plan is Pending, Passed or Failed.
	Reviews map[string]string
	Task    string // the task in progress, e.g. "Task 3: Add login form", when known
}

// Path is where the handoff of the phase in phaseDir lives: beside its plans,
// so that it goes wherever the phase folder goes.
func Path(phaseDir string) string { return filepath.Join(phaseDir, "HANDOFF.md") }

// Render writes h as seed 001's handoff.md. The output depends on h alone:
// lists keep their order, and map keys come out sorted (reviews in the order
// of h.Reviewers first), so the same state always gives the same bytes.
//
// Free text (names, tasks, notes) is kept to one line each, so that Parse can
// read the file back; a review name should start in lower case, as Render
// capitalises it for the In Progress list and Parse lowers it again.
func Render(h Handoff) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Phase %s Handoff\n\n", oneLine(h.Phase))
	fmt.Fprintf(&b, "**Checkpoint time:** %s\n", h.Time.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "**Plan path:** %s\n", oneLine(h.PlanPath))

	b.WriteString("\n## Team Composition\n\n")
	workers := "(none)"
	if len(h.Workers) > 0 {
		workers = oneLine(strings.Join(h.Workers, ", "))
	}
	fmt.Fprintf(&b, "- Workers: %s\n", workers)
	for _, r := range h.Reviewers {
		fmt.Fprintf(&b, "- Reviewer: %s\n", oneLine(r))
	}

	b.WriteString("\n## Task State\n")
	for _, s := range sections(&h) {
		fmt.Fprintf(&b, "\n### %s\n", s.title)
		if len(*s.items) == 0 {
			b.WriteString("- (none)\n")
		}
		for _, it := range *s.items {
			writeItem(&b, h.Reviewers, it)
		}
	}

	b.WriteString("\n## Review Tracking\n\n```json\n")
	b.Write(tracking(h.InProgress))
	b.WriteString("```\n\n## Notes\n\n")
	if len(h.Notes) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, n := range h.Notes {
		fmt.Fprintf(&b, "- %s\n", oneLine(n))
	}
	return b.Bytes()
}

// sections are the three lists of Task State, in the file's order.
func sections(h *Handoff) []struct {
	title string
	items *[]Item
} {
	return []struct {
		title string
		items *[]Item
	}{{"Completed", &h.Completed}, {"In Progress", &h.InProgress}, {"Pending", &h.Pending}}
}

func writeItem(b *bytes.Buffer, reviewers []string, it Item) {
	fmt.Fprintf(b, "- Plan %s: %s (%d/%d tasks)\n", oneLine(it.ID), oneLine(it.Name), it.Done, it.Total)
	if it.Owner != "" {
		fmt.Fprintf(b, "  - Owner: %s\n", oneLine(it.Owner))
	}
	if it.Task != "" {
		fmt.Fprintf(b, "  - Task: %s\n", oneLine(it.Task))
	}
	for _, name := range reviewOrder(reviewers, it.Reviews) {
		fmt.Fprintf(b, "  - %s: %s\n", upperFirst(oneLine(name)), it.Reviews[name])
	}
}

// reviewOrder lists the reviews of a plan in the order the team's checks run
// (spot-check before merge before the gate), then any the team does not
// name, sorted.
func reviewOrder(reviewers []string, reviews map[string]string) []string {
	var names []string
	for _, r := range reviewers {
		if _, ok := reviews[r]; ok && !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	var rest []string
	for r := range reviews {
		if !slices.Contains(names, r) {
			rest = append(rest, r)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// tracking is the Review Tracking block: for each plan in progress, its
// executor and the state of each review under the review's snake_case key.
// It is the part a resumed run reads to skip checks that already passed.
func tracking(inProgress []Item) []byte {
	t := map[string]map[string]string{}
	for _, it := range inProgress {
		t["plan-"+it.ID] = entry(it)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a name with & or < stays readable
	enc.SetIndent("", "  ")
	_ = enc.Encode(t) // maps of strings always encode; json sorts their keys
	return b.Bytes()
}

func entry(it Item) map[string]string {
	e := map[string]string{"worker": it.Owner}
	for name, state := range it.Reviews {
		e[snake(name)] = state
	}
	return e
}

// snake is a review name as a tracking key: "post-merge gate" is
// "post_merge_gate".
func snake(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(name) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine keeps free text on its line: a newline in a note would otherwise
// start a line that Parse cannot place.
func oneLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

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
