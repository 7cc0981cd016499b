package handoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
