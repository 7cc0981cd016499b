package tuikit

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/hivectl/hive/internal/phase"
)

// Colours are the 16 ANSI ones, so the terminal's theme decides how they look.
var (
	StBold    = lipgloss.NewStyle().Bold(true)
	StFaint   = lipgloss.NewStyle().Faint(true)
	StRule    = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	StTitle   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	StAction  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3"))
	StChosen  = lipgloss.NewStyle().Bold(true).Reverse(true)
	StSent    = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	StError   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("1"))
	StateLook = map[phase.PlanState]struct {
		Icon  string
		Style lipgloss.Style
	}{
		phase.Pending:  {"·", lipgloss.NewStyle().Faint(true)},
		phase.Running:  {"▶", lipgloss.NewStyle().Foreground(lipgloss.Color("4")).Bold(true)},
		phase.Waiting:  {"!", lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)},
		phase.Complete: {"✓", lipgloss.NewStyle().Foreground(lipgloss.Color("2"))},
		phase.Failed:   {"✗", lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)},
		phase.Skipped:  {"-", lipgloss.NewStyle().Foreground(lipgloss.Color("8"))},
	}
)

// Tokens reads a count of tokens as 950, 12.3k or 1.2M.
func Tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// Rule is a section heading drawn across the width.
func Rule(title string, width int) string {
	head := "── " + title + " "
	return StRule.Render("── ") + StBold.Render(title) + " " + StRule.Render(strings.Repeat("─", max(0, width-lipgloss.Width(head))))
}
