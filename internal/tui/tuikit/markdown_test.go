package tuikit

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func stripped(s string) string { return ansi.Strip(s) }

// TestRenderMarkdown: the markers go, lists keep their text under their
// bullet when wrapped, tables line up and are never wrapped.
func TestRenderMarkdown(t *testing.T) {
	md := "## Phase 01: core Execution Complete\n\n**Waves:** 2 | **Plans:** 2/3 complete\n\n" +
		"| Wave | Plans | Status | Commits |\n|------|-------|--------|---------|\n| 1 | 01-01, 01-02 | Complete | 7 |\n\n" +
		"### Issues Encountered\n- 01-03 failed: agent exited with code 1 before PLAN COMPLETE; spot-check failed: no SUMMARY\n" +
		"Run `go test ./...` *first*, then __commit__.\n"
	got := stripped(RenderMarkdown(md, 40))
	want := `Phase 01: core Execution Complete

Waves: 2 | Plans: 2/3 complete

 Wave  Plans         Status    Commits
 ────  ────────────  ────────  ───────
 1     01-01, 01-02  Complete  7

Issues Encountered
• 01-03 failed: agent exited with code 1
  before PLAN COMPLETE; spot-check
  failed: no SUMMARY
Run go test ./... first, then commit.
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A table wider than the screen wraps its widest column.
	table := "| Wave | Plans | Status | Commits |\n|---|---|---|---|\n| 2 | 01-03 (1 checkpoint(s) resolved), 01-04 (1 checkpoint(s) resolved) | Complete | 8 |\n"
	got = stripped(RenderMarkdown(table, 60))
	want = ` Wave  Plans                              Status    Commits
 ────  ─────────────────────────────────  ────────  ───────
 2     01-03 (1 checkpoint(s) resolved),  Complete  8
       01-04 (1 checkpoint(s) resolved)
`
	if got != want {
		t.Errorf("a wide table at 60 cells:\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if n := ansi.StringWidth(l); n > 60 {
			t.Errorf("%d cells in a 60-cell screen: %q", n, l)
		}
	}
}
