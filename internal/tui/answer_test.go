package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/tuitest"
	"github.com/hivectl/hive/internal/work"
)

func receive(t *testing.T, ch <-chan phase.Answer) phase.Answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer reached the runner's channel")
	}
	return phase.Answer{}
}

// TestAnswerDecisionWithKeys answers the open decision in a running
// program with the keyboard alone: → → ← enter picks the second option.
func TestAnswerDecisionWithKeys(t *testing.T) {
	answers := make(chan phase.Answer)
	done := make(chan struct{})
	defer close(done)
	tm := teatest.NewTestModel(t, New(Options{Answers: answers, Done: done, Now: at(75), Title: "execute-phase"}), teatest.WithInitialTermSize(80, 24))
	tm.Send(SnapshotMsg{Snap: decisionSnapshot()})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("sqlite-fts")) },
		teatest.WithDuration(10*time.Second))
	for _, k := range []string{"right", "right", "left", "enter"} {
		tm.Send(tuitest.Press(k))
	}
	if a := receive(t, answers); a != (phase.Answer{Plan: "01-03", Text: "bleve"}) {
		t.Errorf("answer = %+v, want bleve for 01-03", a)
	}
	// The runner applied it: the next snapshot has the verification at the
	// head, answered by typing with completion.
	next := decisionSnapshot()
	next.Queue = next.Queue[1:]
	tm.Send(SnapshotMsg{Snap: next}) // the program takes messages in order: the keys below come after it
	for _, k := range []string{"a", "p", "tab", "enter"} {
		tm.Send(tuitest.Press(k))
	}
	if a := receive(t, answers); a != (phase.Answer{Plan: "01-04", Text: "approved"}) {
		t.Errorf("answer = %+v, want approved for 01-04", a)
	}
	tm.Send(tuitest.Press("ctrl+c"))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// TestAnswerByNumber: a digit picks an option; enter sends it; the sent
// answer is shown until the engine applies it.
func TestAnswerByNumber(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	m := New(Options{Answers: answers, Now: at(75)})
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm, _ = tm.Update(SnapshotMsg{Snap: decisionSnapshot()})
	tm, _ = tm.Update(tuitest.Press("3"))
	tm, cmd := tm.Update(tuitest.Press("enter"))
	if cmd == nil {
		t.Fatal("enter sent nothing")
	}
	tm, _ = tm.Update(cmd())
	if a := receive(t, answers); a.Text != "meilisearch" {
		t.Errorf("answer = %+v, want meilisearch", a)
	}
	if s := tm.(Model).Screen(); !bytes.Contains([]byte(s), []byte(`"meilisearch" sent to executor-01-03`)) {
		t.Errorf("the sent answer is not shown:\n%s", s)
	}
}

// TestReadOnly: without an Answers channel keys answer nothing and q quits.
func TestReadOnly(t *testing.T) {
	var tm tea.Model = New(Options{Now: at(75)})
	tm, _ = tm.Update(SnapshotMsg{Snap: decisionSnapshot()})
	if _, cmd := tm.Update(tuitest.Press("enter")); cmd != nil {
		t.Error("a read-only dashboard answered")
	}
	if _, cmd := tm.Update(tuitest.Press("q")); cmd == nil {
		t.Error("q does not quit a read-only dashboard")
	}
}

// TestTabOnBothKinds: on execute-phase's screen too, tab moves through a
// decision's options (round); tab again cycles the completions of a typed
// answer (the answer box's TestTabCyclesCompletions, in tuikit).
func TestTabOnBothKinds(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	var tm tea.Model = New(Options{Answers: answers, Now: at(75)})
	tm, _ = tm.Update(SnapshotMsg{Snap: decisionSnapshot()})
	for _, k := range []string{"tab", "tab", "tab", "tab"} {
		tm, _ = tm.Update(tuitest.Press(k))
	}
	_, cmd := tm.Update(tuitest.Press("enter"))
	if cmd == nil {
		t.Fatal("enter sent nothing")
	}
	cmd()
	if a := receive(t, answers); a.Text != "bleve" {
		t.Errorf("four tabs on three options sent %q, want bleve", a.Text)
	}
}

// TestResumeNowAtALimit: while the run waits for a provider's limit, the
// header says so, the footer offers ctrl+r, and ctrl+r sends what `hive
// answer limit resume-now` does; with no wait, ctrl+r sends nothing.
func TestResumeNowAtALimit(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	var tm tea.Model = New(Options{Answers: answers, Now: at(75)})
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	snap := decisionSnapshot()
	snap.Queue = nil
	tm, _ = tm.Update(SnapshotMsg{Snap: snap})
	ctrlR := tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	if _, cmd := tm.Update(ctrlR); cmd != nil {
		t.Error("ctrl+r did something while the run waits for no limit")
	}
	snap.Limit = &work.LimitWait{Kind: work.LimitUsage, Since: at(70), Until: at(75).Add(2*time.Hour + 13*time.Minute), Job: "01-02"}
	tm, _ = tm.Update(SnapshotMsg{Snap: snap})
	screen := ansi.Strip(tm.(Model).Screen())
	for _, want := range []string{"waiting: usage limit", "waiting for the usage limit's reset at", "(in 2h13m)", "ctrl+r go on now"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	_, cmd := tm.Update(ctrlR)
	if cmd == nil {
		t.Fatal("ctrl+r sent nothing")
	}
	cmd()
	if a := receive(t, answers); a != (phase.Answer{Plan: phase.LimitID, Text: phase.ResumeNow}) {
		t.Errorf("answer = %+v, want limit resume-now", a)
	}
}
