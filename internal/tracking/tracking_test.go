package tracking

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var day = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func phase(done int, complete bool) Phase {
	p := Phase{Number: "01", Name: "Core Library", Status: "Executing", Activity: "Completed 01-02-PLAN.md",
		Complete: complete, Now: day}
	for i := 1; i <= 6; i++ {
		p.Plans = append(p.Plans, Plan{ID: "01-0" + string(rune('0'+i)), Done: i <= done})
	}
	return p
}

// phaseOf is phase number num with plans num-01 … num-<plans>, the first done
// of them done.
func phaseOf(num, name string, plans, done int, complete bool) Phase {
	p := Phase{Number: num, Name: name, Status: "Executing", Activity: "Completed " + num + "-01-PLAN.md",
		Complete: complete, Now: day}
	for i := 1; i <= plans; i++ {
		p.Plans = append(p.Plans, Plan{ID: num + "-0" + string(rune('0'+i)), Done: i <= done})
	}
	return p
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", name, got)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// changedLines lists the lines of b that differ from a's line at the same
// place; a and b must have as many lines.
func changedLines(t *testing.T, a, b string) []string {
	t.Helper()
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) {
		t.Fatalf("%d lines became %d:\n%s", len(al), len(bl), b)
	}
	var out []string
	for i := range al {
		if al[i] != bl[i] {
			out = append(out, bl[i])
		}
	}
	return out
}

func TestStateGolden(t *testing.T) {
	golden(t, "STATE.2of6.golden", State(read(t, "STATE.md"), phase(2, false)))
	// Rewriting its own output changes only what changed.
	again := State(State(read(t, "STATE.md"), phase(2, false)), phase(3, false))
	if strings.Count(again, "---\ngsd_state_version") != 1 || !strings.Contains(again, "Plan: 3 of 6 in current phase") {
		t.Errorf("second rewrite:\n%s", again)
	}
	if !strings.Contains(again, "- ISBN-13 is the canonical ISBN form") {
		t.Error("the user's decisions were lost")
	}
}

func TestStateFromNothing(t *testing.T) {
	got := State("", phase(1, false))
	for _, want := range []string{"completed_plans: 1", "## Current Position", "Plan: 1 of 6 in current phase", "Progress: [█░░░░░░░░░] 16%"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestRoadmapGolden(t *testing.T) {
	golden(t, "ROADMAP.2of6.golden", Roadmap(read(t, "ROADMAP.md"), phase(2, false)))
	golden(t, "ROADMAP.complete.golden", Roadmap(read(t, "ROADMAP.md"), phase(6, true)))
}

func TestRoadmapLeavesOtherPhases(t *testing.T) {
	p := phase(6, true)
	p.Number = "02"
	for i := range p.Plans {
		p.Plans[i].ID = strings.Replace(p.Plans[i].ID, "01-", "02-", 1)
	}
	got := Roadmap(read(t, "ROADMAP.md"), p)
	if strings.Contains(got, "- [x] 01-01-PLAN.md") || strings.Contains(got, "- [x] **Phase 1") {
		t.Error("phase 1 was ticked by a phase 2 run")
	}
	if !strings.Contains(got, "- [x] **Phase 2: Reading Lists**") {
		t.Errorf("phase 2 not ticked:\n%s", got)
	}
	if !strings.Contains(got, "| 1. Core Library | 0/6 | Not started | - |") {
		t.Errorf("phase 1's row changed:\n%s", got)
	}
}

func TestBar(t *testing.T) {
	for pct, want := range map[int]string{0: "[░░░░░░░░░░] 0%", 50: "[█████░░░░░] 50%", 100: "[██████████] 100%"} {
		if got := Bar(pct); got != want {
			t.Errorf("Bar(%d) = %q, want %q", pct, got, want)
		}
	}
}
