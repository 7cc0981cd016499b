package sessions

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// session is an agent.Session whose silence the test sets.
type session struct {
	sent    []string
	silent  time.Duration
	touched int
	done    chan struct{}
}

func (s *session) PID() int               { return 4242 }
func (s *session) Send(text string) error { s.sent = append(s.sent, text); return nil }
func (s *session) AnswerPermission(string, bool, string, string) error {
	return errors.New("not asked")
}
func (s *session) Stop(time.Duration)             { close(s.done) }
func (s *session) StopTurn(time.Duration)         { close(s.done) }
func (s *session) KillStalled(string)             { close(s.done) }
func (s *session) Kill()                          { close(s.done) }
func (s *session) Silent(time.Time) time.Duration { return s.silent }
func (s *session) Touch()                         { s.touched++; s.silent = 0 }
func (s *session) Done() <-chan struct{}          { return s.done }
func (l *launcher) Name() string                  { return "fake" }
func (l *launcher) LiveSessions() bool            { return true }

// launcher starts sessions, or fails to.
type launcher struct {
	fail  error
	specs []agent.Spec
	last  *session
}

func (l *launcher) Start(_ context.Context, spec agent.Spec, _ func(agent.Output)) (agent.Session, error) {
	if l.fail != nil {
		return nil, l.fail
	}
	l.specs = append(l.specs, spec)
	l.last = &session{done: make(chan struct{})}
	return l.last, nil
}

// The agents executor alone: a start is posted (its failure as the
// agent's exit, for the engine to judge), a send reaches the session and
// restarts its silence, and a silence is reported once, then again only
// after the time the engine's CmdWatch gave.
func TestAgentsExecutor(t *testing.T) {
	ctx := context.Background()
	box, l := runnertest.NewInbox(), &launcher{}
	spec := func(_ context.Context, c phase.Command) (agent.Spec, agent.Launcher, error) {
		return agent.Spec{Plan: c.Plan, Attempt: c.Attempt, Prompt: "do " + c.Plan}, l, nil
	}
	var said []string
	a := New(box, func(plan, text string) { said = append(said, plan+": "+text) }, spec, Config{Stall: time.Minute})

	a.Execute(ctx, phase.Command{Type: phase.CmdStartAgent, Plan: "01-01", Attempt: 1, Role: "comb"}, phase.Snapshot{})
	if len(box.Posted) != 1 || box.Posted[0].Type != phase.EvAgentStarted || box.Posted[0].PID != 4242 || box.Posted[0].Role != "comb" {
		t.Fatalf("start posted %+v, want one agent-started with pid 4242 and role comb", box.Posted)
	}
	if len(l.specs) != 1 || l.specs[0].Prompt != "do 01-01" {
		t.Fatalf("launcher got %+v", l.specs)
	}
	s := l.last

	a.Execute(ctx, phase.Command{Type: phase.CmdSend, Plan: "01-01", Attempt: 1, Message: phase.MsgCheckpointResponse, Text: "approved"}, phase.Snapshot{})
	if len(s.sent) != 1 || !strings.Contains(s.sent[0], "approved") || s.touched != 1 {
		t.Fatalf("send: session got %q, touched %d times", s.sent, s.touched)
	}
	a.Execute(ctx, phase.Command{Type: phase.CmdSend, Plan: "01-09", Attempt: 1, Text: "x"}, phase.Snapshot{})
	if len(said) != 1 || !strings.Contains(said[0], "no live agent") {
		t.Fatalf("a send to no agent said %q", said)
	}

	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s.silent = 2 * time.Minute
	if evs := a.Watch(now); len(evs) != 1 || evs[0].Type != phase.EvSilent || evs[0].Plan != "01-01" || evs[0].Text != "2m0s" {
		t.Fatalf("first watch = %+v, want one silence of 2m0s", evs)
	}
	if evs := a.Watch(now.Add(time.Hour)); len(evs) != 0 {
		t.Fatalf("a reported silence is reported again before the engine says when: %+v", evs)
	}
	a.Execute(ctx, phase.Command{Type: phase.CmdWatch, Plan: "01-01", Attempt: 1, At: now.Add(30 * time.Second)}, phase.Snapshot{})
	if evs := a.Watch(now.Add(10 * time.Second)); len(evs) != 0 {
		t.Fatalf("silence reported before its time: %+v", evs)
	}
	if evs := a.Watch(now.Add(30 * time.Second)); len(evs) != 1 {
		t.Fatalf("silence not reported at its time: %+v", evs)
	}

	a.Exited(phase.Event{Plan: "01-01", Attempt: 1})
	if len(a.live) != 0 || len(a.silentAt) != 0 {
		t.Fatalf("an exited session is kept: %d live, %d watched", len(a.live), len(a.silentAt))
	}

	l.fail = errors.New("no such program")
	box.Posted = nil
	a.Execute(ctx, phase.Command{Type: phase.CmdStartAgent, Plan: "01-02", Attempt: 2}, phase.Snapshot{})
	if len(box.Posted) != 1 || box.Posted[0].Type != phase.EvAgentExited || box.Posted[0].ExitCode != -1 || box.Posted[0].Reason != "no such program" {
		t.Fatalf("a failed start posted %+v, want its exit -1 with the reason", box.Posted)
	}
}
