package runner

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
)

// inbox records what an executor reports, as the loop would take it.
type inbox struct {
	mu     sync.Mutex
	posted []engine.Event
	sent   chan engine.Event
	notes  []string
}

func newInbox() *inbox { return &inbox{sent: make(chan engine.Event, 16)} }

func (b *inbox) Post(ev engine.Event) { b.posted = append(b.posted, ev) }
func (b *inbox) Send(ev engine.Event) { b.sent <- ev }
func (b *inbox) Note(plan, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notes = append(b.notes, plan+": "+text)
}

func (b *inbox) next(t *testing.T) engine.Event {
	t.Helper()
	select {
	case ev := <-b.sent:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event sent")
		return engine.Event{}
	}
}

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
	box, l := newInbox(), &launcher{}
	spec := func(_ context.Context, c engine.Command) (agent.Spec, agent.Launcher, error) {
		return agent.Spec{Plan: c.Plan, Attempt: c.Attempt, Prompt: "do " + c.Plan}, l, nil
	}
	var said []string
	a := newAgents(box, func(plan, text string) { said = append(said, plan+": "+text) }, Agents{Stall: time.Minute}, spec)

	a.Execute(ctx, engine.Command{Type: engine.CmdStartAgent, Plan: "01-01", Attempt: 1, Role: "comb"}, engine.Snapshot{})
	if len(box.posted) != 1 || box.posted[0].Type != engine.EvAgentStarted || box.posted[0].PID != 4242 || box.posted[0].Role != "comb" {
		t.Fatalf("start posted %+v, want one agent-started with pid 4242 and role comb", box.posted)
	}
	if len(l.specs) != 1 || l.specs[0].Prompt != "do 01-01" {
		t.Fatalf("launcher got %+v", l.specs)
	}
	s := l.last

	a.Execute(ctx, engine.Command{Type: engine.CmdSend, Plan: "01-01", Attempt: 1, Message: engine.MsgCheckpointResponse, Text: "approved"}, engine.Snapshot{})
	if len(s.sent) != 1 || !strings.Contains(s.sent[0], "approved") || s.touched != 1 {
		t.Fatalf("send: session got %q, touched %d times", s.sent, s.touched)
	}
	a.Execute(ctx, engine.Command{Type: engine.CmdSend, Plan: "01-09", Attempt: 1, Text: "x"}, engine.Snapshot{})
	if len(said) != 1 || !strings.Contains(said[0], "no live agent") {
		t.Fatalf("a send to no agent said %q", said)
	}

	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s.silent = 2 * time.Minute
	if evs := a.watch(now); len(evs) != 1 || evs[0].Type != engine.EvSilent || evs[0].Plan != "01-01" || evs[0].Text != "2m0s" {
		t.Fatalf("first watch = %+v, want one silence of 2m0s", evs)
	}
	if evs := a.watch(now.Add(time.Hour)); len(evs) != 0 {
		t.Fatalf("a reported silence is reported again before the engine says when: %+v", evs)
	}
	a.Execute(ctx, engine.Command{Type: engine.CmdWatch, Plan: "01-01", Attempt: 1, At: now.Add(30 * time.Second)}, engine.Snapshot{})
	if evs := a.watch(now.Add(10 * time.Second)); len(evs) != 0 {
		t.Fatalf("silence reported before its time: %+v", evs)
	}
	if evs := a.watch(now.Add(30 * time.Second)); len(evs) != 1 {
		t.Fatalf("silence not reported at its time: %+v", evs)
	}

	a.exited(engine.Event{Plan: "01-01", Attempt: 1})
	if len(a.live) != 0 || len(a.silentAt) != 0 {
		t.Fatalf("an exited session is kept: %d live, %d watched", len(a.live), len(a.silentAt))
	}

	l.fail = errors.New("no such program")
	box.posted = nil
	a.Execute(ctx, engine.Command{Type: engine.CmdStartAgent, Plan: "01-02", Attempt: 2}, engine.Snapshot{})
	if len(box.posted) != 1 || box.posted[0].Type != engine.EvAgentExited || box.posted[0].ExitCode != -1 || box.posted[0].Reason != "no such program" {
		t.Fatalf("a failed start posted %+v, want its exit -1 with the reason", box.posted)
	}
}

// The planning-files executor alone writes and removes an open checkpoint's
// pending file.
func TestPlanningFilesExecutor(t *testing.T) {
	root := t.TempDir()
	ph := &plan.Phase{Number: "01", Dir: ".planning/phases/01-x"}
	if err := os.MkdirAll(filepath.Join(root, ph.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &planningFiles{root: root, phase: ph, now: time.Now, say: func(p, text string) { t.Errorf("note %s: %s", p, text) },
		shared: func() bool { return false }}
	cp := &engine.Checkpoint{Plan: "01-01", Type: "decision", Awaiting: "pick one"}
	f.Execute(context.Background(), engine.Command{Type: engine.CmdCheckpointOpened, Plan: "01-01", Checkpoint: cp}, engine.Snapshot{})
	data, err := os.ReadFile(pendingPath(root, ph, "01-01"))
	if err != nil || !strings.Contains(string(data), "pick one") {
		t.Fatalf("pending file: %v %s", err, data)
	}
	f.Execute(context.Background(), engine.Command{Type: engine.CmdCheckpointClosed, Plan: "01-01"}, engine.Snapshot{})
	if _, err := os.Stat(pendingPath(root, ph, "01-01")); !os.IsNotExist(err) {
		t.Fatalf("pending file left after the answer: %v", err)
	}
}

// The human-waits executor alone: a wake comes back as EvWake once its time
// has come; a stop for a human is kept for the loop.
func TestHumanWaitsExecutor(t *testing.T) {
	box := newInbox()
	now := time.Now()
	h := &humanWaits{inbox: box, now: func() time.Time { return now }, after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	h.Execute(context.Background(), engine.Command{Type: engine.CmdWake, At: now.Add(-time.Second)}, engine.Snapshot{})
	if ev := box.next(t); ev.Type != engine.EvWake {
		t.Fatalf("wake sent %+v", ev)
	}
	h.Execute(context.Background(), engine.Command{Type: engine.CmdStopForHuman}, engine.Snapshot{})
	if !h.stopped {
		t.Fatal("stop for a human not kept")
	}
}

// Every command that asks for I/O has an executor; those only shown to the
// human (notes, waves, a need for a human) go to the observer alone.
func TestEveryCommandIsRouted(t *testing.T) {
	r := newRunner(Options{Repo: &gitx.Repo{Root: t.TempDir()}, Phase: &plan.Phase{}, Observer: &recorder{}, Agents: Agents{Launcher: &launcher{}}}, nil)
	shown := []engine.CommandType{engine.CmdNote, engine.CmdWaveStarted, engine.CmdNeedHuman}
	for _, c := range commandTypes(t) {
		routed := len(r.routes[c]) > 0
		if routed == slices.Contains(shown, c) {
			t.Errorf("command %s: routed %v", c, routed)
		}
	}
}

// commandTypes reads every CommandType constant the engine declares, so
// that a new command without an executor fails the test above.
func commandTypes(t *testing.T) []engine.CommandType {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "../engine", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.CommandType
	for _, f := range pkgs["engine"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "CommandType" {
					continue
				}
				for _, val := range v.Values {
					lit, err := strconv.Unquote(val.(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, engine.CommandType(lit))
				}
			}
		}
	}
	if len(out) < 15 {
		t.Fatalf("found %d command types in the engine's source, want them all", len(out))
	}
	return out
}
