package tui

import (
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// ContextText is how full a plan's agent session is, for `hive status`:
// "42.0k/200.0k 21%", with its rollovers (↻) and the compactions its CLI
// made on its own; "-" before any usage said.
func ContextText(c phase.ContextUse) string {
	if c.Tokens == 0 && c.Rollovers == 0 && c.Compactions == 0 {
		return "-"
	}
	s := tuikit.Tokens(c.Tokens)
	if c.Window > 0 {
		s += fmt.Sprintf("/%s %.0f%%", tuikit.Tokens(c.Window), 100*c.Share())
	}
	if c.Rolling {
		s += " handing over"
	}
	if c.Rollovers > 0 {
		s += fmt.Sprintf(" ↻%d", c.Rollovers)
	}
	if c.Compactions > 0 {
		s += fmt.Sprintf(" compacted %d×", c.Compactions)
	}
	return s
}

// contextGauge is a running agent's context as a short bar against its
// window: faint while it has room, the warning colour once it nears the
// handoff point, the error colour when it hands over (or its CLI
// compacted it). "" before any usage said.
func contextGauge(c phase.ContextUse) string {
	if c.Tokens == 0 || c.Window <= 0 {
		return ""
	}
	const width = 5
	full := min(width, int(c.Share()*width+0.5))
	text := fmt.Sprintf("ctx %s%s %.0f%%", strings.Repeat("▮", full), strings.Repeat("▯", width-full), 100*c.Share())
	switch {
	case c.Rolling:
		return tuikit.StError.Render(text + " handing over")
	case c.Compactions > 0:
		return tuikit.StError.Render(text + " compacted")
	case c.Warn():
		return tuikit.StAction.Render(text)
	}
	return tuikit.StFaint.Render(text)
}
