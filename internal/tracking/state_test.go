package tracking

import (
	"strings"
	"testing"
)

// TestStateKeepsGSDFrontmatter: a STATE.md written by GSD keeps its
// milestone, last_activity and progress.total_phases; hive sets only its
// keys, and only the Current Position and Session Continuity fields change
// in the body.
func TestStateKeepsGSDFrontmatter(t *testing.T) {
	old := read(t, "STATE.milestone.md")
	got := State(old, phaseOf("01", "Peer Discovery", 3, 1, false))
	golden(t, "STATE.milestone.golden", got)
	want := []string{
		"status: executing",
		`stopped_at: "Completed 01-01-PLAN.md"`,
		`last_updated: "2026-11-22T10:00:00Z"`,
		`current_phase: "01"`,
		"  completed_plans: 1",
		"  percent: 33",
		"Plan: 1 of 3 in current phase",
		"Status: Executing",
		"Last activity: 2026-11-22 — Completed 01-01-PLAN.md",
		"Progress: [███░░░░░░░] 33%",
		"Last session: 2026-11-22",
		"Stopped at: Completed 01-01-PLAN.md",
	}
	// current_phase is new: it goes in before progress.
	oldWith := strings.Replace(old, "progress:\n", "current_phase: x\nprogress:\n", 1)
	if diff := changedLines(t, oldWith, got); strings.Join(diff, "\n") != strings.Join(want, "\n") {
		t.Errorf("changed lines:\n%s\nwant:\n%s", strings.Join(diff, "\n"), strings.Join(want, "\n"))
	}
}

// TestStateOwnsOnlyItsSection: a "Status:" line outside Current Position is
// the user's; bold fields keep their markup; missing fields are added next
// to the others.
func TestStateOwnsOnlyItsSection(t *testing.T) {
	got := State(read(t, "STATE.bold.md"), phaseOf("01", "Backlinks", 2, 1, false))
	golden(t, "STATE.bold.golden", got)
	for _, want := range []string{
		"**Phase:** 1 of 2 (Backlinks)\n**Plan:** 1 of 2 in current phase\n**Status:** Executing\nLast activity: 2026-11-22 — Completed 01-01-PLAN.md\n\nProgress: [█████░░░░░] 50%\n",
		"Status: links are resolved case-insensitively (decided 2025-10-20).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestStateCRLF(t *testing.T) {
	for _, name := range []string{"STATE.md", "STATE.milestone.md", "STATE.bold.md"} {
		lf := read(t, name)
		crlf := strings.ReplaceAll(lf, "\n", "\r\n")
		p := phaseOf("01", "One", 3, 2, false)
		want := strings.ReplaceAll(State(lf, p), "\n", "\r\n")
		if got := State(crlf, p); got != want {
			t.Errorf("%s with CRLF:\n%q\nwant\n%q", name, got, want)
		}
	}
}

// TestStateUnchanged: a second write with nothing new gives the file back
// byte for byte, quoting and all.
func TestStateUnchanged(t *testing.T) {
	for _, name := range []string{"STATE.md", "STATE.milestone.md", "STATE.bold.md"} {
		p := phaseOf("01", "One", 3, 2, false)
		once := State(read(t, name), p)
		if twice := State(once, p); twice != once {
			t.Errorf("%s: second write changed the file:\n%s", name, twice)
		}
	}
}

// GSD's progress keys count the whole milestone: with the project's
// progress known, total_plans and completed_plans are the project's, the
// percent is the lesser of its plans' and phases' shares (phases not yet
// done keep it down), and the Progress bar says the same; "Plan: N of M in
// current phase" stays the phase's.
func TestStateCountsTheProject(t *testing.T) {
	old := read(t, "STATE.milestone.md")
	p := phaseOf("01", "Peer Discovery", 3, 1, false)
	p.Project = Progress{Plans: 10, DonePlans: 8, Phases: 4, DonePhases: 2}
	got := State(old, p)
	for _, want := range []string{"  total_plans: 10\n", "  completed_plans: 8\n", "  percent: 50\n",
		"Plan: 1 of 3 in current phase", "Progress: [█████░░░░░] 50%"} {
		if !strings.Contains(got, want) {
			t.Errorf("STATE.md lacks %q:\n%s", want, got)
		}
	}
	p.Project = Progress{Plans: 10, DonePlans: 3, Phases: 4, DonePhases: 3}
	if got := State(old, p); !strings.Contains(got, "  percent: 30\n") {
		t.Errorf("percent of 3 of 10 plans in 3 of 4 phases, want 30:\n%s", got)
	}
}
