package runner

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/testsupport/runnertest"
)

// The human-waits executor alone: a wake comes back as EvWake once its time
// has come; a stop for a human is kept for the loop.
func TestHumanWaitsExecutor(t *testing.T) {
	box := runnertest.NewInbox()
	now := time.Now()
	h := &humanWaits{inbox: box, now: func() time.Time { return now }, after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	h.Execute(context.Background(), phase.Command{Type: phase.CmdWake, At: now.Add(-time.Second)}, phase.Snapshot{})
	if ev := box.Next(t); ev.Type != phase.EvWake {
		t.Fatalf("wake sent %+v", ev)
	}
	h.Execute(context.Background(), phase.Command{Type: phase.CmdStopForHuman}, phase.Snapshot{})
	if !h.stopped {
		t.Fatal("stop for a human not kept")
	}
}

// Every command that asks for I/O has an executor; those only shown to the
// human (notes, waves, a need for a human) go to the observer alone.
func TestEveryCommandIsRouted(t *testing.T) {
	r := newRunner(Options{Repo: &gitx.Repo{Root: t.TempDir()}, Phase: &plan.Phase{}, Observer: &recorder{}, Agents: Agents{Launcher: adapter.Sim{}}}, nil)
	shown := []phase.CommandType{phase.CmdNote, phase.CmdWaveStarted, phase.CmdNeedHuman}
	for _, c := range commandTypes(t) {
		routed := len(r.routes[c]) > 0
		if routed == slices.Contains(shown, c) {
			t.Errorf("command %s: routed %v", c, routed)
		}
	}
}

// commandTypes reads every CommandType constant the engine's vocabulary
// declares, so that a new command without an executor fails the test above.
func commandTypes(t *testing.T) []phase.CommandType {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "../phase", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []phase.CommandType
	for _, f := range pkgs["phase"].Files {
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
					out = append(out, phase.CommandType(lit))
				}
			}
		}
	}
	if len(out) < 15 {
		t.Fatalf("found %d command types in the engine's source, want them all", len(out))
	}
	return out
}
