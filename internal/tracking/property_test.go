package tracking

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	roadmapFixtures = []string{"ROADMAP.md", "ROADMAP.3col.md", "ROADMAP.5col.md", "ROADMAP.milestones.md", "ROADMAP.shipped.md"}
	stateFixtures   = []string{"STATE.md", "STATE.milestone.md", "STATE.bold.md"}
)

// randomPhase is a phase the fixtures know (or not), with random progress
// and, one time in three, no date.
func randomPhase(r *rand.Rand) Phase {
	nums := []string{"1", "01", "2", "02", "02.1", "2.1", "3", "03", "7"}
	num := nums[r.IntN(len(nums))]
	plans := 1 + r.IntN(6)
	done := r.IntN(plans + 1)
	p := phaseOf(num, "Some Phase", plans, done, done == plans && r.IntN(2) == 0)
	p.Now = time.Date(2026, time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), 0, 0, 0, time.UTC)
	if r.IntN(3) == 0 {
		p.Now = time.Time{}
	}
	// Plans done out of order, as parallel waves finish them.
	r.Shuffle(len(p.Plans), func(i, j int) { p.Plans[i].Done, p.Plans[j].Done = p.Plans[j].Done, p.Plans[i].Done })
	return p
}

var (
	boxLineRE = regexp.MustCompile(`^(\s*[-*+] \[)([ xX])(\].*)$`)
	numRE     = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)*`)
)

// norm drops a phase number's padding zeros, as GSD documents vary in them.
func norm(s string) string { return phaseNum(s) }

// TestRoadmapChangesOnlyOwnedLines applies random updates to every roadmap
// fixture, with "\n" and "\r\n", and checks that each changed line is one
// hive owns: a box of one of the phase's done plans, or of the phase once
// complete, only ticked; or the phase's progress row with only its Plans
// Complete, Status and Completed cells changed. A second update changes
// nothing.
func TestRoadmapChangesOnlyOwnedLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	changed := map[string]int{}
	for _, name := range roadmapFixtures {
		for _, eol := range []string{"\n", "\r\n"} {
			old := strings.ReplaceAll(read(t, name), "\n", eol)
			for range 150 {
				p := randomPhase(r)
				got := Roadmap(old, p)
				if again := Roadmap(got, p); again != got {
					t.Fatalf("%s, %+v: a second update changed the file", name, p)
				}
				checkRoadmapChange(t, name, old, got, eol, p)
				if got != old {
					changed[name]++
				}
			}
		}
	}
	for _, name := range roadmapFixtures {
		if changed[name] == 0 {
			t.Errorf("%s: no update changed it; the test checks nothing", name)
		}
	}
}

func checkRoadmapChange(t *testing.T, name, old, got, eol string, p Phase) {
	t.Helper()
	ol, gl := strings.Split(old, eol), strings.Split(got, eol)
	if len(ol) != len(gl) {
		t.Fatalf("%s: %d lines became %d", name, len(ol), len(gl))
	}
	if strings.Count(got, "\r\n") != strings.Count(old, "\r\n") || strings.Count(got, "\n") != strings.Count(old, "\n") {
		t.Fatalf("%s: line endings changed", name)
	}
	done := map[string]bool{}
	for _, pl := range p.Plans {
		if pl.Done {
			done[pl.ID] = true
		}
	}
	rows := 0
	for i := range ol {
		o, g := ol[i], gl[i]
		if o == g {
			continue
		}
		what := fmt.Sprintf("%s line %d, phase %s (%d/%d, complete %v)\n  was: %s\n  now: %s", name, i+1, p.Number, p.done(), len(p.Plans), p.Complete, o, g)
		if om, gm := boxLineRE.FindStringSubmatch(o), boxLineRE.FindStringSubmatch(g); om != nil && gm != nil {
			if om[1] != gm[1] || om[3] != gm[3] || om[2] != " " || gm[2] != "x" {
				t.Errorf("a box changed other than by a tick: %s", what)
			}
			text := strings.TrimLeft(om[3][1:], " *`")
			id, isPlan := "", false
			if m := regexp.MustCompile(`^([0-9.]+)-([0-9]+)`).FindStringSubmatch(text); m != nil {
				id, isPlan = norm(m[1])+"-"+norm(m[2]), true
			}
			switch {
			case isPlan:
				ok := false
				for pid := range done {
					ok = ok || planKey(pid) == id
				}
				if !ok {
					t.Errorf("ticked a plan that is not done: %s", what)
				}
			case strings.HasPrefix(text, "Phase "):
				if !p.Complete || norm(numRE.FindString(text)) != norm(p.Number) {
					t.Errorf("ticked a phase that is not this complete phase: %s", what)
				}
			default:
				t.Errorf("ticked a box that is no plan nor phase: %s", what)
			}
			if strings.Contains(o, "deferred") || strings.Contains(o, "dropped") {
				// The fixtures' shipped milestones leave these boxes open.
				t.Errorf("ticked a box of a shipped milestone: %s", what)
			}
			continue
		}
		// A progress row: same cells, only the owned ones changed.
		oc, gc := strings.Split(o, "|"), strings.Split(g, "|")
		if !strings.HasPrefix(strings.TrimSpace(o), "|") || len(oc) != len(gc) {
			t.Errorf("not a box, not a row with its cells: %s", what)
			continue
		}
		rows++
		header := strings.Split(headerOf(ol, i), "|")
		for c := range oc {
			h := strings.ToLower(strings.TrimSpace(header[c]))
			if oc[c] != gc[c] && h != "plans complete" && h != "status" && h != "completed" {
				t.Errorf("changed the %q cell: %s", h, what)
			}
			if h == "phase" && norm(numRE.FindString(oc[c])) != norm(p.Number) {
				t.Errorf("changed another phase's row: %s", what)
			}
			if h == "milestone" && strings.Contains(oc[c], "v1.0") && strings.Contains(strings.ToLower(old), "shipped") {
				t.Errorf("changed a shipped milestone's row: %s", what)
			}
		}
		if strings.Contains(o, "| 2025-") {
			// The fixtures' shipped milestones completed in 2025.
			t.Errorf("changed a shipped milestone's row: %s", what)
		}
		if strings.Contains(g, "0001-01-01") || (p.Now.IsZero() && p.Complete && strings.Contains(g, "2026-")) {
			t.Errorf("wrote a date hive does not know: %s", what)
		}
	}
	if rows > 1 {
		t.Errorf("%s: %d progress rows changed for phase %s", name, rows, p.Number)
	}
}

// headerOf is the header row of the table holding line i.
func headerOf(ls []string, i int) string {
	for i > 0 && strings.HasPrefix(strings.TrimSpace(ls[i-1]), "|") {
		i--
	}
	return ls[i]
}

// TestStateChangesOnlyOwnedLines applies random updates to every STATE.md
// fixture and checks that the lines of the old file all survive in order,
// each unchanged or, for a field hive owns, with a new value; lines added are
// fields hive owns (or the blank line before Progress).
func TestStateChangesOnlyOwnedLines(t *testing.T) {
	owned := regexp.MustCompile(`^(?:(?:status|current_phase|stopped_at|last_updated|  total_plans|  completed_plans|  percent): |(?:\*\*)?(?:Phase|Plan|Status|Last activity|Progress|Stopped at|Last session):)`)
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range append(stateFixtures, "") {
		for _, eol := range []string{"\n", "\r\n"} {
			old := ""
			if name != "" {
				old = strings.ReplaceAll(read(t, name), "\n", eol)
			}
			for range 150 {
				p := randomPhase(r)
				got := State(old, p)
				if again := State(got, p); again != got {
					t.Fatalf("%s: a second update changed the file:\n%s", name, again)
				}
				if strings.Contains(got, "0001-01-01") {
					t.Fatalf("%s: a zero time reached the file:\n%s", name, got)
				}
				if old == "" {
					continue
				}
				ol, gl := strings.Split(old, eol), strings.Split(got, eol)
				j := 0
				for _, g := range gl {
					switch {
					case j < len(ol) && g == ol[j]:
						j++
					case j < len(ol) && owned.MatchString(g) && owned.MatchString(ol[j]) && key(g) == key(ol[j]):
						j++
					case owned.MatchString(g) || g == "" || g == "---" && !strings.HasPrefix(old, "---"):
						// added
					case !strings.HasPrefix(old, "---") && (g == "gsd_state_version: 1.0" || g == "progress:"):
						// a new frontmatter
					default:
						t.Fatalf("%s: line %q is neither the old line %q nor one hive owns:\n%s", name, g, ol[min(j, len(ol)-1)], got)
					}
				}
				if j != len(ol) {
					t.Fatalf("%s: the old line %q was lost:\n%s", name, ol[j], got)
				}
			}
		}
	}
}

func key(s string) string { return strings.Trim(s[:strings.Index(s, ":")], "* ") }

// TestZeroTimeNeverWritten: a zero time.Time (a run whose plans carry no
// time yet) never reaches a file as 0001-01-01, and the dates the files hold
// stay.
func TestZeroTimeNeverWritten(t *testing.T) {
	for _, name := range roadmapFixtures {
		old := read(t, name)
		for _, p := range []Phase{phaseOf("01", "One", 3, 3, true), phaseOf("02", "Two", 2, 2, true), phaseOf("2.1", "Fix", 1, 1, true)} {
			p.Now = time.Time{}
			got := Roadmap(old, p)
			if strings.Contains(got, "0001-01-01") {
				t.Errorf("%s: zero date written:\n%s", name, got)
			}
			if strings.Count(got, "2026-11-22") != 0 {
				t.Errorf("%s: a date from nowhere:\n%s", name, got)
			}
		}
	}
	// The dates each STATE.md keeps: the activity is new, its date is not.
	kept := map[string][]string{
		"STATE.md":           {"Last session: 2026-01-12\n", "Last activity: 2026-01-12 — Completed 01-01-PLAN.md\n"},
		"STATE.milestone.md": {`last_updated: "2026-02-03T16:40:12.511Z"`, "Last session: 2026-02-03 16:40\n", "Last activity: 2026-02-03 — Completed 01-01-PLAN.md\n"},
		"STATE.bold.md":      {"Last activity: Completed 01-01-PLAN.md\n"},
		"":                   {"Last activity: Completed 01-01-PLAN.md\n"},
	}
	for _, name := range append(stateFixtures, "") {
		old := ""
		if name != "" {
			old = read(t, name)
		}
		p := phaseOf("01", "One", 3, 2, false)
		p.Now = time.Time{}
		got := State(old, p)
		if strings.Contains(got, "0001-01-01") || strings.Contains(got, "last_updated: \"0001") {
			t.Errorf("%s: zero date written:\n%s", name, got)
		}
		for _, want := range kept[name] {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q not in:\n%s", name, want, got)
			}
		}
		if name == "" && strings.Contains(got, "last_updated") {
			t.Errorf("a new STATE.md got a last_updated hive does not know:\n%s", got)
		}
	}
}
