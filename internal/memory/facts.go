package memory

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/confidence"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/workflows"
)

// Kinds of lesson.
const (
	KindTests     = "tests"     // the project's tests failed after a role's work
	KindBuild     = "build"     // the project's build failed after it
	KindChallenge = "challenge" // a later role challenged it
	KindFinding   = "finding"   // a reviewing role found a problem in it
	// KindLearning: the documenter's advice about a lesson of the run,
	// kept because it names what the run proved.
	KindLearning = "learning"
)

// Lesson is one thing that went wrong in a run, and whom it concerned.
type Lesson struct {
	ID     int64    `json:"id"`
	Run    int64    `json:"run"`
	Kind   string   `json:"kind"`
	Role   string   `json:"role"`   // the role whose work it concerns
	Source string   `json:"source"` // who found it: a role, or hive's tests or build
	Text   string   `json:"text"`
	Files  []string `json:"files,omitempty"`
	// Confirmed: the run proved it real and fixed it (the tests or build
	// passed after a fix, the finding was fixed, the challenge answered).
	Confirmed bool `json:"confirmed"`
}

// Key identifies a lesson across runs: the same kind, role and text
// (numbers and case aside) is the same lesson again.
func (l Lesson) Key() string {
	return l.Kind + "|" + l.Role + "|" + digits.ReplaceAllString(strings.ToLower(strings.Join(strings.Fields(l.Text), " ")), "#")
}

var digits = regexp.MustCompile(`[0-9]+`)

// Decision is a question a role asked, and what was chosen.
type Decision struct {
	Role     string `json:"role"`
	Question string `json:"question"`
	Choice   string `json:"choice"`
	By       string `json:"by"`
}

// RoleStats are a role's figures in one run.
type RoleStats struct {
	Role       string  `json:"role"`
	Attempts   int     `json:"attempts"`
	Challenged int     `json:"challenged"` // challenges of its work
	FixLoops   int     `json:"fix_loops"`  // failing tests or builds it was sent to fix
	Tokens     int64   `json:"tokens"`
	CostUSD    float64 `json:"cost_usd"`
	// Confidence is hive's computed confidence in its work, of 70 (-1:
	// not scored); a score whose skipped checks left a smaller Max is
	// scaled to 70.
	Confidence int `json:"confidence"`
}

// Facts are what the memory keeps of one run.
type Facts struct {
	Run       int64       `json:"run"`
	Objective string      `json:"objective"`
	Workflow  string      `json:"workflow"`
	Outcome   string      `json:"outcome"`
	Finished  time.Time   `json:"finished"`
	Lessons   []Lesson    `json:"lessons"`
	Decisions []Decision  `json:"decisions"`
	Roles     []RoleStats `json:"roles"`
	Tools     []string    `json:"tools,omitempty"` // on the machine as the run began
}

// fileRE is a path with a file extension, maybe with a line after it.
var fileRE = regexp.MustCompile(`^((?:[\w.-]+/)*[\w-]+\.(?:go|ts|tsx|js|jsx|vue|py|rs|rb|java|kt|cs|php|swift|c|h|cc|cpp|sql|txt|md|json|ya?ml|toml|html|css))(?::\d+)*$`)

// FilesIn are the first few distinct paths text names: words that are a
// path with an extension (a module path such as example.com/svc is not).
func FilesIn(text string) []string {
	var out []string
	words := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n\r()[]{}<>\"'`,;", r) })
	for _, w := range words {
		m := fileRE.FindStringSubmatch(strings.TrimRight(w, ".:!?"))
		if m != nil && !slices.Contains(out, m[1]) && len(out) < 5 {
			out = append(out, m[1])
		}
	}
	return out
}

// ConfidenceRecord is the journal type of hive run's computed confidence
// (runjournal.ConfidenceEvent), which the memory keeps per role.
const ConfidenceRecord = "role-confidence"

// FromJournal reads the facts of a finished run from hive run's journal.
func FromJournal(j journal.Journal, run journal.Run) (Facts, error) {
	m := pipeline.New()
	f := Facts{Run: run.ID, Outcome: run.Outcome, Finished: run.Finished}
	// Failures waiting for the check that shows them fixed, by job.
	open := map[string]int{}
	fixLoops := map[string]int{}
	scored := map[string]int{}
	err := j.Each(run.ID, func(rec journal.Record) error {
		if rec.Type == ConfidenceRecord {
			var scores []confidence.Score
			if json.Unmarshal(rec.Payload, &scores) == nil {
				for _, s := range scores {
					scored[s.Role] = s.OfMax()
				}
			}
			return nil
		}
		var ev roleplan.Event
		if json.Unmarshal(rec.Payload, &ev) != nil || string(ev.Type) != rec.Type {
			return nil // hive's own records (the delivery), not the machine's
		}
		m.Step(ev) // an event refused live changed nothing then either
		if (ev.Type != roleplan.EvTestsRan && ev.Type != roleplan.EvBuilt) || !ev.Tests.Ran() {
			return nil
		}
		t := ev.Tests
		if t.ExitCode == 0 {
			if i, ok := open[ev.Job]; ok {
				f.Lessons[i].Confirmed = true
				delete(open, ev.Job)
			}
			return nil
		}
		if t.Unrunnable {
			return nil // a missing tool is no one's mistake
		}
		s := m.Snapshot()
		l := Lesson{Run: run.ID, Kind: KindTests, Role: fixerOf(s, ev.Job), Source: ev.Job, Files: FilesIn(t.Output)}
		if ev.Type == roleplan.EvBuilt {
			l.Kind, l.Source = KindBuild, "build"
			l.Text = "the build (" + t.Command + ") failed: " + firstError(t.Output)
		} else {
			failing := slices.Clone(t.Failing)
			sort.Strings(failing)
			if len(failing) > 4 {
				failing = append(failing[:4], "…")
			}
			l.Text = "the tests failed: " + strings.Join(failing, ", ")
			if len(failing) == 0 {
				l.Text = fmt.Sprintf("the tests (%s) failed", t.Command)
			}
		}
		fixLoops[l.Role]++
		if i, ok := open[ev.Job]; ok && f.Lessons[i].Key() == l.Key() {
			return nil // the same failure again, in the same run: one lesson
		}
		open[ev.Job] = len(f.Lessons)
		f.Lessons = append(f.Lessons, l)
		return nil
	})
	if err != nil {
		return f, err
	}
	s := m.Snapshot()
	f.Objective, f.Workflow, f.Tools = s.Spec.Objective, s.Spec.Workflow.Name, s.Spec.Tools
	roleOf := map[string]string{}
	for _, jb := range s.Jobs {
		roleOf[jb.ID] = jb.Role
	}
	challenged := map[string]int{}
	for _, c := range s.Challenges {
		challenged[c.To]++
		if c.Round > 1 {
			continue // the second round is the first one's, decided by a human
		}
		second := slices.ContainsFunc(s.Challenges, func(o roleplan.Challenge) bool { return o.Round > 1 && o.From == c.From && o.To == c.To })
		f.Lessons = append(f.Lessons, Lesson{Run: run.ID, Kind: KindChallenge, Role: c.To, Source: c.From, Text: c.Issue,
			Files: FilesIn(c.Issue + " " + c.Evidence), Confirmed: !second})
	}
	for _, fd := range s.Findings {
		l := Lesson{Run: run.ID, Kind: KindFinding, Role: workflows.RoleImplementer, Source: roleOf[fd.Job], Text: fd.Title,
			Confirmed: fd.Status == roleplan.FindingFixed}
		if fd.File != "" {
			l.Files = []string{fd.File}
		}
		f.Lessons = append(f.Lessons, l)
	}
	// The documenter proposes learnings; hive keeps those that name a
	// file or test of a lesson the run proved.
	var proved []Lesson
	for _, l := range f.Lessons {
		if l.Confirmed {
			proved = append(proved, l)
		}
	}
	for _, jb := range s.Jobs {
		if jb.Role != workflows.RoleDocumenter || jb.Report == nil {
			continue
		}
		var proposed []string
		_ = json.Unmarshal(jb.Report.Extra["learnings"], &proposed)
		for _, p := range proposed {
			if l, ok := provedBy(p, proved); ok {
				f.Lessons = append(f.Lessons, Lesson{Run: run.ID, Kind: KindLearning, Role: l.Role, Source: jb.Role,
					Text: strings.Join(strings.Fields(p), " "), Files: l.Files, Confirmed: true})
			}
		}
	}
	for _, d := range s.Decisions {
		f.Decisions = append(f.Decisions, Decision{Role: roleOf[d.Job], Question: d.Question, Choice: d.Choice, By: d.By})
	}
	stats := map[string]*RoleStats{}
	for _, jb := range s.Jobs {
		if jb.Role == "" || jb.Attempts == 0 {
			continue
		}
		r := stats[jb.Role]
		if r == nil {
			r = &RoleStats{Role: jb.Role, Confidence: -1}
			if c, ok := scored[jb.Role]; ok {
				r.Confidence = c
			}
			stats[jb.Role] = r
		}
		r.Attempts += jb.Attempts
		r.Tokens += jb.Spend.InputTokens + jb.Spend.OutputTokens
		r.CostUSD += jb.Spend.CostUSD
	}
	for role, r := range stats {
		r.Challenged, r.FixLoops = challenged[role], fixLoops[role]
		f.Roles = append(f.Roles, *r)
	}
	sort.Slice(f.Roles, func(a, b int) bool { return f.Roles[a].Role < f.Roles[b].Role })
	return f, nil
}

var testNameRE = regexp.MustCompile(`\bTest\w+`)

// provedBy finds the proved lesson a proposed learning is about: one whose
// file (or its base name) or failing test the proposal names.
func provedBy(proposal string, proved []Lesson) (Lesson, bool) {
	p := strings.ToLower(proposal)
	for _, l := range proved {
		names := testNameRE.FindAllString(l.Text, -1)
		for _, f := range l.Files {
			names = append(names, f, path.Base(f))
		}
		for _, n := range names {
			if len(n) > 3 && strings.Contains(p, strings.ToLower(n)) {
				return l, true
			}
		}
	}
	return Lesson{}, false
}

// Proved are the lessons of a run (finished or not) that it proved and
// fixed so far, told for the documenter.
func Proved(j journal.Journal, run journal.Run) []string {
	f, err := FromJournal(j, run)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range f.Lessons {
		if l.Confirmed && l.Kind != KindLearning {
			text := fmt.Sprintf("%s (the %s's work; found by the %s)", l.Text, l.Role, l.Source)
			if len(l.Files) > 0 {
				text += "; files: " + strings.Join(l.Files, ", ")
			}
			out = append(out, text)
		}
	}
	return out
}

// fixerOf is the role that fixes what job's check found failing: its
// step's on_failure role, else the implementer.
func fixerOf(s roleplan.Snapshot, job string) string {
	for _, st := range s.Spec.Workflow.Steps {
		if st.ID() == job && st.OnFailure != "" {
			return st.OnFailure
		}
	}
	return workflows.RoleImplementer
}

// firstError is the output's first line that reads like an error, else its
// first line, in at most 160 bytes.
func firstError(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pick := lines[0]
	for _, l := range lines {
		if ll := strings.ToLower(l); strings.Contains(ll, "error") || strings.Contains(ll, "undefined") || strings.Contains(ll, "cannot") {
			pick = l
			break
		}
	}
	pick = strings.TrimSpace(pick)
	if len(pick) > 160 {
		pick = pick[:160] + "…"
	}
	return pick
}
