package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/hivectl/hive/internal/engine"
)

// Colours are the 16 ANSI ones, so the terminal's theme decides how they look.
var (
	stBold    = lipgloss.NewStyle().Bold(true)
	stFaint   = lipgloss.NewStyle().Faint(true)
	stRule    = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	stTitle   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	stAction  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3"))
	stChosen  = lipgloss.NewStyle().Bold(true).Reverse(true)
	stSent    = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	stError   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("1"))
	stateLook = map[engine.PlanState]struct {
		icon  string
		style lipgloss.Style
	}{
		engine.Pending:  {"·", lipgloss.NewStyle().Faint(true)},
		engine.Running:  {"▶", lipgloss.NewStyle().Foreground(lipgloss.Color("4")).Bold(true)},
		engine.Waiting:  {"!", lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)},
		engine.Complete: {"✓", lipgloss.NewStyle().Foreground(lipgloss.Color("2"))},
		engine.Failed:   {"✗", lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)},
		engine.Skipped:  {"-", lipgloss.NewStyle().Foreground(lipgloss.Color("8"))},
	}
)

// stateLabel is how a state reads in the plan table.
func stateLabel(s engine.PlanState) string {
	return string(s)
}

// bar is a progress bar of width cells for done of total tasks.
func bar(done, total, width int, st engine.PlanState) string {
	if total <= 0 {
		total = 1
	}
	if st == engine.Complete {
		done = total
	}
	full := min(width, done*width/total)
	look := stateLook[st].style
	return look.Render(strings.Repeat("█", full)) + stFaint.Render(strings.Repeat("░", width-full))
}

// tokens reads as 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

func cost(usd float64) string { return fmt.Sprintf("$%.2f", usd) }

// clock reads as 0:42, 12:05 or 1:02:03.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// rule is a section heading drawn across the width.
func rule(title string, width int) string {
	head := "── " + title + " "
	return stRule.Render("── ") + stBold.Render(title) + " " + stRule.Render(strings.Repeat("─", max(0, width-lipgloss.Width(head))))
}
