package tracking

import (
	"maps"
	"strings"
	"testing"
)

// TestRoadmapTables updates the progress tables real GSD projects write —
// three, four and five columns, in any order, padded or not — by their
// header names, and keeps every other byte.
func TestRoadmapTables(t *testing.T) {
	for _, tc := range []struct {
		golden, fixture string
		phase           Phase
		// changed are the only lines the update may change, as they must read after it.
		changed []string
	}{
		{
			golden: "ROADMAP.3col.golden", fixture: "ROADMAP.3col.md",
			phase: phaseOf("02.1", "Unit Conversion Fix", 1, 1, true),
			changed: []string{
				"- [x] **Phase 2.1: Unit Conversion Fix** - grams and ounces disagree (INSERTED)",
				"- [x] 02.1-01: Conversion table and rounding rules",
				"| Phase 2.1: Unit Conversion Fix | 1/1 | Complete |",
			},
		},
		{
			golden: "ROADMAP.4col.golden", fixture: "ROADMAP.md",
			phase: phase(3, false),
			changed: []string{
				"- [x] 01-01-PLAN.md — Book model with validation (wave 1)",
				"- [x] 01-02-PLAN.md — ISBN parsing and normalisation (wave 1)",
				"- [x] 01-03-PLAN.md — Shelf file persistence (wave 2)",
				"| 1. Core Library | 3/6 | In progress | - |",
			},
		},
		{
			golden: "ROADMAP.5col.golden", fixture: "ROADMAP.5col.md",
			phase: phaseOf("01", "Capture", 3, 2, false),
			changed: []string{
				"- [x] **01-01**: Sighting model and species checklist",
				"- [x] **01-02**: Fuzzy species matching",
				"| 01. Capture      | v1.0      | 2/3            | In progress | -         |",
			},
		},
		{
			golden: "ROADMAP.5col.complete.golden", fixture: "ROADMAP.5col.md",
			phase: phaseOf("1", "Capture", 3, 3, true),
			changed: []string{
				"- [x] **Phase 1: Capture** - Sightings with species, count, place and time",
				"- [x] **01-01**: Sighting model and species checklist",
				"- [x] **01-02**: Fuzzy species matching",
				"- [x] **01-03**: Quick-entry screen",
				"| 01. Capture      | v1.0      | 3/3            | Complete    | 2026-11-22 |",
			},
		},
		{
			// A row not padded like the others stays as it was written.
			golden: "ROADMAP.5col.phase3.golden", fixture: "ROADMAP.5col.md",
			phase: phaseOf("03", "Season Summary", 2, 1, false),
			changed: []string{
				"| 03. Season Summary | v1.0 | 1/2 | In progress | - |",
			},
		},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			old := read(t, tc.fixture)
			got := Roadmap(old, tc.phase)
			golden(t, tc.golden, got)
			if diff := changedLines(t, old, got); strings.Join(diff, "\n") != strings.Join(tc.changed, "\n") {
				t.Errorf("changed lines:\n%s\nwant:\n%s", strings.Join(diff, "\n"), strings.Join(tc.changed, "\n"))
			}
		})
	}
}

// TestRoadmapMilestones: phase 1 of the shipped milestone and phase 1 of the
// current one both appear; only the current one changes.
func TestRoadmapMilestones(t *testing.T) {
	for _, tc := range []struct {
		golden, fixture string
		phase           Phase
		changed         []string
	}{
		{
			// Shipped milestone collapsed in <details>, 5-column table.
			golden: "ROADMAP.milestones.golden", fixture: "ROADMAP.milestones.md",
			phase: phaseOf("02", "Layer Exchange", 2, 2, true),
			changed: []string{
				"- [x] **Phase 2: Layer Exchange** - A layer one peer has is fetched from it",
				"- [x] 02-01-PLAN.md — Peer blob endpoint",
				"- [x] 02-02-PLAN.md — Scheduled sweeps that skip layers peers still need",
				"| 2. Layer Exchange | v2.0 | 2/2 | Complete | 2026-11-22 |",
			},
		},
		{
			golden: "ROADMAP.milestones.phase1.golden", fixture: "ROADMAP.milestones.md",
			phase: phaseOf("01", "Peer Discovery", 3, 1, false),
			changed: []string{
				"- [x] 01-01-PLAN.md — Peer record and gossip message",
				"| 1. Peer Discovery | v2.0 | 1/3 | In progress | - |",
			},
		},
		{
			// Shipped milestone under a "✅ … (Shipped …)" heading, a
			// 4-column table listing both milestones' phase 2.
			golden: "ROADMAP.shipped.golden", fixture: "ROADMAP.shipped.md",
			phase: phaseOf("02", "Graph View", 2, 2, true),
			changed: []string{
				"- [x] **Phase 2: Graph View** - Notes and links drawn as a graph",
				"- [x] 02-01: Graph layout",
				"- [x] 02-02: Saved searches as graph filters",
				"| 2. Graph View | 2/2 | Complete | 2026-11-22 |",
			},
		},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			old := read(t, tc.fixture)
			got := Roadmap(old, tc.phase)
			golden(t, tc.golden, got)
			if diff := changedLines(t, old, got); strings.Join(diff, "\n") != strings.Join(tc.changed, "\n") {
				t.Errorf("changed lines:\n%s\nwant:\n%s", strings.Join(diff, "\n"), strings.Join(tc.changed, "\n"))
			}
		})
	}
}

// TestRoadmapCRLF: a roadmap saved with Windows line endings keeps them, and
// gets the same update as with "\n".
func TestRoadmapCRLF(t *testing.T) {
	for _, name := range []string{"ROADMAP.md", "ROADMAP.3col.md", "ROADMAP.5col.md", "ROADMAP.milestones.md", "ROADMAP.shipped.md"} {
		lf := read(t, name)
		crlf := strings.ReplaceAll(lf, "\n", "\r\n")
		for _, p := range []Phase{phaseOf("01", "One", 3, 2, false), phaseOf("02", "Two", 2, 2, true), phaseOf("02.1", "Fix", 1, 1, true)} {
			want := strings.ReplaceAll(Roadmap(lf, p), "\n", "\r\n")
			if got := Roadmap(crlf, p); got != want {
				t.Errorf("%s, phase %s with CRLF:\n%q\nwant\n%q", name, p.Number, got, want)
			}
		}
	}
}

func TestRowPhase(t *testing.T) {
	for cell, want := range map[string]string{
		" 1. Core Library ": "1", "01. Capture": "01", "Phase 1": "1", "Phase 2: Name": "2",
		"2.1. Fix": "2.1", "07.1. Fix search": "07.1", "**3** Search": "3", "12": "12",
		"1-7 (v1.0)": "", "8-12.1 (v1.1)": "", "Total": "", "v1.0": "", "1a. Odd": "",
	} {
		got, ok := rowPhase(cell)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("rowPhase(%q) = %q, want %q", cell, got, want)
		}
	}
}

func TestPlanRef(t *testing.T) {
	for s, want := range map[string]string{
		"01-02-PLAN.md — ISBN": "01-02", "01-02: Fuzzy": "01-02", "**01-02**: Fuzzy": "01-02",
		"`01-02-PLAN.md`": "01-02", "Plan 01-02 — x": "01-02", "02.1-01: Conversion": "02.1-01",
		"01-02": "01-02", "01-foundation-03-PLAN.md": "", "2024-05-01 release": "",
		"**Phase 1: Core**": "",
	} {
		got, ok := planRef(s)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("planRef(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestRoadmapDetailsBlocks: a collapsed <details> is a shipped milestone; one
// shown open, or whose summary says it is in progress, is the current one.
func TestRoadmapDetailsBlocks(t *testing.T) {
	p := phaseOf("03", "Export", 1, 1, true)
	for _, tc := range []struct {
		name, open, summary string
		ticked              bool
	}{
		{"collapsed", "<details>", "<summary>✅ v1.0 (Phases 1-3) - SHIPPED 2025-06-01</summary>", false},
		{"no summary", "<details>", "", false},
		{"shown open", "<details open>", "<summary>v1.1 Export (Phases 3-4)</summary>", true},
		{"in progress", "<details>", "<summary>🚧 v1.1 Export (Phases 3-4) - in progress</summary>", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := "# Roadmap\n\n" + tc.open + "\n" + tc.summary + "\n\n- [ ] **Phase 3: Export** - CSV and JSON\n\nPlans:\n- [ ] 03-01-PLAN.md — Exporters\n\n</details>\n"
			got := Roadmap(old, p)
			if ticked := strings.Contains(got, "- [x] **Phase 3: Export**") && strings.Contains(got, "- [x] 03-01-PLAN.md"); ticked != tc.ticked {
				t.Errorf("ticked = %v, want %v:\n%s", ticked, tc.ticked, got)
			}
		})
	}
}

// TickedPlans reads the current milestone's ticked plans only: a shipped
// milestone's boxes name plans of the same ids that are other work.
func TestTickedPlans(t *testing.T) {
	old := read(t, "ROADMAP.milestones.md")
	if got := TickedPlans(old); len(got) != 0 {
		t.Errorf("ticked in a roadmap whose current milestone ticks nothing: %v", got)
	}
	ticked := Roadmap(old, phaseOf("02", "Layer Exchange", 2, 1, false))
	if got, want := TickedPlans(ticked), map[string]int{"2-1": 59}; !maps.Equal(got, want) {
		t.Errorf("TickedPlans = %v, want %v", got, want)
	}
}
