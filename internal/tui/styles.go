package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/tui/tuikit"
)

// stateLabel is how a state reads in the plan table.
func stateLabel(s phase.PlanState) string {
	return string(s)
}

// bar is a progress bar of width cells for done of total tasks.
func bar(done, total, width int, st phase.PlanState) string {
	if total <= 0 {
		total = 1
	}
	if st == phase.Complete {
		done = total
	}
	full := min(width, done*width/total)
	look := tuikit.StateLook[st].Style
	return look.Render(strings.Repeat("█", full)) + tuikit.StFaint.Render(strings.Repeat("░", width-full))
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
