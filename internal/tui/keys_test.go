package tui

import (
	"bytes"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport/tuitest"
)

// TestHelpWhileCheckpointOpen: ? opens the help over an open checkpoint
// (a decision, or a typed answer not begun yet), and ? or esc closes it;
// once an answer is being typed, ? is a character of it and f1 opens the
// help. The footer says which.
func TestHelpWhileCheckpointOpen(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	for _, sc := range []struct {
		name string
		snap phase.Snapshot
	}{{"decision", decisionSnapshot()}, {"human-verify", verifySnapshot()}} {
		t.Run(sc.name, func(t *testing.T) {
			m, s := screen(t, New(Options{Answers: answers, Now: at(75)}), 80, 24, SnapshotMsg{Snap: sc.snap}, tuitest.Press("?"))
			if !strings.Contains(s, "── Keys") || !strings.Contains(s, "?/esc close help") {
				t.Fatalf("? does not open the help over the checkpoint:\n%s", s)
			}
			for _, closeKey := range []string{"?", "esc"} {
				_, s = screen(t, m, 80, 24, tuitest.Press(closeKey))
				if strings.Contains(s, "── Keys") || !strings.Contains(s, "Checkpoint Queue") {
					t.Errorf("%s does not close the help:\n%s", closeKey, s)
				}
			}
		})
	}
	// Typing: ? goes into the answer, f1 opens the help, and the footer
	// says so.
	m, s := screen(t, New(Options{Answers: answers, Now: at(75)}), 80, 24, SnapshotMsg{Snap: verifySnapshot()},
		tuitest.Press("w"), tuitest.Press("h"), tuitest.Press("y"), tuitest.Press("?"))
	if strings.Contains(s, "── Keys") || !strings.Contains(s, "> why?") {
		t.Fatalf("? while typing is not a character:\n%s", s)
	}
	if !strings.Contains(s, "f1 help (? types)") {
		t.Errorf("the footer does not say how to get help while typing:\n%s", s)
	}
	if _, s = screen(t, m, 80, 24, tuitest.Press("f1")); !strings.Contains(s, "── Keys") {
		t.Errorf("f1 does not open the help while typing:\n%s", s)
	}
}

// TestHelpInRunningProgram: the same through a running program, keys in
// order.
func TestHelpInRunningProgram(t *testing.T) {
	answers := make(chan phase.Answer, 1)
	tm := teatest.NewTestModel(t, New(Options{Answers: answers, Now: at(75), Title: "execute-phase"}), teatest.WithInitialTermSize(80, 24))
	tm.Send(SnapshotMsg{Snap: decisionSnapshot()})
	tm.Send(tuitest.Press("?"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("close help")) }, teatest.WithDuration(10*time.Second))
	tm.Send(tuitest.Press("q")) // not a key of an answering dashboard
	tm.Send(tuitest.Press("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if fm := tm.FinalModel(t).(Model); !fm.box.HelpShown() || !fm.Interrupted {
		t.Errorf("final model: help %v, interrupted %v", fm.box.HelpShown(), fm.Interrupted)
	}
}

// TestCtrlCStopsAndSaysSo: ctrl+c asks the runner to stop (once) and the
// dashboard stays up saying so until the run is over; a second ctrl+c
// leaves at once.
func TestCtrlCStopsAndSaysSo(t *testing.T) {
	var stops atomic.Int32
	tm := teatest.NewTestModel(t, New(Options{Answers: make(chan phase.Answer), Now: at(75), Title: "execute-phase",
		Interrupt: func() { stops.Add(1) }}), teatest.WithInitialTermSize(80, 24))
	tm.Send(SnapshotMsg{Snap: decisionSnapshot()})
	tm.Send(tuitest.Press("ctrl+c"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Stopping: hive stops the agents")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(FinishedMsg{})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if n := stops.Load(); n != 1 {
		t.Errorf("Interrupt called %d times, want 1", n)
	}
	if !tm.FinalModel(t).(Model).Interrupted {
		t.Error("the final model does not say the human stopped the run")
	}

	// A second ctrl+c does not wait for the runner.
	var m tea.Model = New(Options{Answers: make(chan phase.Answer), Now: at(75), Interrupt: func() {}})
	m, _ = m.Update(SnapshotMsg{Snap: decisionSnapshot()})
	m, first := m.Update(tuitest.Press("ctrl+c"))
	if first == nil {
		t.Fatal("the first ctrl+c does nothing")
	}
	if _, ok := first().(tea.QuitMsg); ok {
		t.Error("the first ctrl+c quits before the run stopped")
	}
	_, second := m.Update(tuitest.Press("ctrl+c"))
	if second == nil {
		t.Fatal("the second ctrl+c does nothing")
	}
	if _, ok := second().(tea.QuitMsg); !ok {
		t.Error("the second ctrl+c does not quit")
	}
}

// TestStoppedText: after a stop the terminal says which plans were under
// way, that their work is kept, and the command that resumes the run.
func TestStoppedText(t *testing.T) {
	s := decisionSnapshot()
	s.Phase, s.Worktrees = "01", true
	s.Plans[3].State, s.Plans[3].Open = phase.Running, nil
	resume := "hive execute-phase 01 --agent sim --repo /tmp/hive-demo-1"
	narrow := stripped(StoppedText(s, resume, 80))
	tuitest.Golden(t, "./internal/tui", "stopped-text-80", narrow)
	tuitest.CheckFits(t, strings.TrimRight(narrow, "\n"), 80, 100)
	got := StoppedText(s, resume, 0)
	for _, want := range []string{"Stopped:", "01-03 Search API and ranking of results, with the backend chosen by the user — waiting for you (Decision Required)",
		"01-04 Command-line interface — running, 2/3 tasks done", "hive/01/01-03, hive/01/01-04", "work is kept", "Not started yet: 01-05, 01-06",
		"Resume with:\n  " + resume} {
		if !strings.Contains(stripped(got), want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// TestScrollStopsAtTheEnd: pgdn past the end of a long checkpoint does not
// pile up, so the first pgup scrolls back at once.
func TestScrollStopsAtTheEnd(t *testing.T) {
	marker := regexp.MustCompile(`↕ lines (\d+)-(\d+) of (\d+)`)
	msgs := []tea.Msg{SnapshotMsg{Snap: decisionSnapshot()}}
	for range 10 {
		msgs = append(msgs, tuitest.Press("pgdown"))
	}
	m, s := screen(t, New(Options{Answers: make(chan phase.Answer), Now: at(75)}), 80, 24, msgs...)
	end := marker.FindStringSubmatch(s)
	if end == nil || end[2] != end[3] {
		t.Fatalf("ten pgdn do not reach the end: %v\n%s", end, s)
	}
	_, s = screen(t, m, 80, 24, tea.KeyPressMsg{Code: tea.KeyPgUp})
	if up := marker.FindStringSubmatch(s); up == nil || up[1] == end[1] {
		t.Errorf("pgup after the end does not scroll back: %v then %v", end, up)
	}
}

// TestCtrlPPausesOnce: ctrl+p asks the runner to pause the team (once, even
// while an answer is being typed) and the footer says what happens.
func TestCtrlPPausesOnce(t *testing.T) {
	answers := make(chan phase.Answer, 2)
	var m tea.Model = New(Options{Answers: answers, Now: at(75)})
	m, _ = m.Update(SnapshotMsg{Snap: verifySnapshot()})
	m, _ = m.Update(tuitest.Press("o"))
	m, cmd := m.Update(tuitest.Press("ctrl+p"))
	if cmd == nil {
		t.Fatal("ctrl+p does nothing")
	}
	cmd()
	if a := <-answers; !a.Pause {
		t.Fatalf("ctrl+p sent %+v, want a pause", a)
	}
	if _, again := m.Update(tuitest.Press("ctrl+p")); again != nil {
		t.Error("a second ctrl+p asks again")
	}
	if _, s := screen(t, m.(Model), 80, 24); !strings.Contains(s, "Pausing: each agent commits its work in progress") || !strings.Contains(s, "> o") {
		t.Errorf("the screen does not say it pauses, or lost the answer being typed:\n%s", s)
	}
}
