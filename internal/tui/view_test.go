package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/tuitest"
)

// screen builds a dashboard at w×h from msgs and returns its screen without
// styles.
func screen(t *testing.T, m Model, w, h int, msgs ...tea.Msg) (Model, string) {
	t.Helper()
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, msg := range msgs {
		tm, _ = tm.Update(msg)
	}
	m = tm.(Model)
	return m, ansi.Strip(m.Screen())
}

func logMsgs() []tea.Msg {
	var out []tea.Msg
	for _, l := range demoLogs() {
		out = append(out, LogMsg(l))
	}
	return out
}

// sizes are the screens the goldens keep: a small terminal, a common
// larger one, and a wide one.
var sizes = [][2]int{{80, 24}, {120, 40}, {200, 50}}

func TestGoldenScreens(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	scenes := []struct {
		name string
		snap phase.Snapshot
		keys []string
		opts func(*Options)
	}{
		{name: "running-wave", snap: demoSnapshot()},
		{name: "decision-checkpoint", snap: decisionSnapshot()},
		{name: "verify-checkpoint", snap: verifySnapshot(), keys: []string{"l", "o", "o", "k", "s", " ", "o", "k", "?"}},
		{name: "help-over-checkpoint", snap: decisionSnapshot(), keys: []string{"?"}},
		{name: "failed-plan", snap: failedSnapshot()},
		{name: "budget-checkpoint", snap: budgetSnapshot()},
		{name: "stopping", snap: decisionSnapshot(), keys: []string{"ctrl+c"}, opts: func(o *Options) { o.Interrupt = func() {} }},
	}
	for _, sc := range scenes {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", sc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				o := Options{Answers: answers, Now: at(75), Title: "execute-phase", Dir: "/home/ada/src/shelf"}
				if sc.opts != nil {
					sc.opts(&o)
				}
				msgs := append([]tea.Msg{StartedMsg{Time: t0}}, logMsgs()...)
				msgs = append(msgs, SnapshotMsg{Snap: sc.snap})
				for _, k := range sc.keys {
					msgs = append(msgs, tuitest.Press(k))
				}
				_, s := screen(t, New(o), sz[0], sz[1], msgs...)
				tuitest.CheckFits(t, s, sz[0], sz[1])
				checkNothingCut(t, s, sc.snap)
				tuitest.Golden(t, "./internal/tui", name, s)
			})
		}
	}
}

// checkNothingCut fails when a screen cuts what matters: a plan's name (it
// wraps instead), the header, the checkpoint's title and action line, or
// the footer. Only the scroll marker and PROGRESS lines may end in "…".
func checkNothingCut(t *testing.T, s string, snap phase.Snapshot) {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if strings.HasSuffix(l, "…") && !strings.Contains(l, "└ ") {
			t.Errorf("line %d is cut: %q", i+1, l)
		}
	}
	words := strings.Fields(s)
	for _, p := range snap.Plans {
		row := regexp.MustCompile(`(?m)^  \S ` + regexp.QuoteMeta(p.Spec.ID) + ` `)
		if !row.MatchString(s) {
			continue // in a collapsed wave, by id only
		}
		if !tuitest.InOrder(words, strings.Fields(p.Spec.Name)) {
			t.Errorf("plan %s's name %q is not all on the screen", p.Spec.ID, p.Spec.Name)
		}
	}
}

// TestResizeRedraws: every size from tiny to wide gives a screen that fits.
func TestResizeRedraws(t *testing.T) {
	m := New(Options{Answers: make(chan phase.Answer), Now: at(75)})
	for _, snap := range []phase.Snapshot{demoSnapshot(), decisionSnapshot(), failedSnapshot()} {
		for _, sz := range [][2]int{{40, 10}, {80, 24}, {100, 30}, {119, 24}, {120, 40}, {200, 50}, {80, 12}} {
			_, s := screen(t, m, sz[0], sz[1], append(logMsgs(), SnapshotMsg{Snap: snap})...)
			tuitest.CheckFits(t, s, sz[0], sz[1])
		}
	}
}

// TestDecisionOptionsShown: the open decision lists its options and says
// which one enter would send.
func TestDecisionOptionsShown(t *testing.T) {
	m := New(Options{Answers: make(chan phase.Answer), Now: at(75)})
	_, s := screen(t, m, 80, 24, SnapshotMsg{Snap: decisionSnapshot()}, tuitest.Press("right"))
	for _, want := range []string{"Checkpoint Queue (2 pending)", "1 of 2: Plan 01-03 — Decision Required", "→ YOUR ACTION: Select: sqlite-fts, bleve, meilisearch", "[2 bleve]", "2 of 2: Plan 01-04 — Verification Required (waiting its turn)"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

func stripped(s string) string { return ansi.Strip(s) }
