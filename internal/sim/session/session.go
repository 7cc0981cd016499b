package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
	"github.com/hivectl/hive/internal/sim/stream"
)

// Run runs one sim session in dir, which must be the git repository (or
// worktree) the plan belongs to, with converse playing its conversation (on
// a goroutine of its own). args are the command-line arguments: Claude
// Code's flags are ignored, except --session-id, which names the session.
// It returns the process exit code: the one converse asked for (Exit), else
// once stdin closed the one set by SetEOFExit (1 unless set), or 2 when dir
// cannot be resolved. A hung session (Hang) never returns.
func Run(dir string, set faults.Settings, args []string, stdin io.Reader, stdout, stderr io.Writer, converse func(*Session)) int {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hive sim: working directory: %v\n", err)
		return 2
	}
	sessionID := stream.NewUUID()
	for i, a := range args {
		if a == "--session-id" && i+1 < len(args) {
			sessionID = args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--session-id="); ok {
			sessionID = v
		}
	}
	if len(sessionID) < 8 {
		sessionID = stream.NewUUID()
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Session{
		Dir: dir, RealDir: realDir, Set: set, Log: stderr, Ctx: ctx,
		Out:   stream.NewEmitter(stdout, sessionID, dir, set.Context),
		msgs:  make(chan string, 1024),
		exitc: make(chan int, 1),
	}
	s.Git = repo.NewGit(ctx, dir, &s.mu, gitOptions(dir))
	s.eofExit.Store(1)

	eof := make(chan struct{})
	go stream.ReadInput(stdin, s.msgs, eof, stderr)
	go converse(s)

	select {
	case code := <-s.exitc:
		s.Out.Close()
		return code
	case <-eof:
	}
	// A requested exit that raced with EOF wins: it carries the real code.
	select {
	case code := <-s.exitc:
		s.Out.Close()
		return code
	default:
	}
	if s.hung.Load() {
		// A hung agent ignores stdin, like a wedged Claude Code session: only
		// a kill ends it. Sleeping (not select{}) keeps the runtime from
		// declaring a deadlock.
		for {
			time.Sleep(time.Hour)
		}
	}
	cancel()
	s.mu.Lock() // let the git command or file write in flight finish
	s.Out.Close()
	s.mu.Unlock()
	return int(s.eofExit.Load())
}

// gitOptions supplies an identity when the repository has none (commits
// would fail) and turns off commit signing, which would prompt.
func gitOptions(dir string) []string {
	opts := []string{"-c", "commit.gpgsign=false"}
	if os.Getenv("GIT_AUTHOR_EMAIL") != "" && os.Getenv("GIT_COMMITTER_EMAIL") != "" {
		return opts // the environment names one: no git process to ask
	}
	g := repo.NewGit(context.Background(), dir, new(sync.Mutex), nil)
	if email, _ := g.Run("config", "user.email"); email == "" {
		opts = append(opts, "-c", "user.name=hive sim", "-c", "user.email=sim@hive.invalid")
	}
	return opts
}

// Session is one agent process: its conversation, and the repository it
// works in.
type Session struct {
	Dir, RealDir string
	Set          faults.Settings
	Out          *stream.Emitter
	Log          io.Writer
	Git          *repo.Git
	Ctx          context.Context // cancelled when stdin closes

	msgs    chan string
	exitc   chan int
	eofExit atomic.Int32 // exit code if stdin closes now
	hung    atomic.Bool

	// mu is held around every git command and file write; see Run.
	mu sync.Mutex

	// pending holds the messages that arrived during a turn and wait for
	// its end (see Take); only the converse goroutine uses it.
	pending []string
}

// Next waits for the next user message; false once stdin closed.
func (s *Session) Next() (string, bool) {
	if len(s.pending) > 0 {
		m := s.pending[0]
		s.pending = s.pending[1:]
		return m, true
	}
	select {
	case m := <-s.msgs:
		return m, true
	case <-s.Ctx.Done():
		return "", false
	}
}

// Exit asks Run to return code. The caller returns ErrExited right after.
func (s *Session) Exit(code int) {
	select {
	case s.exitc <- code:
	default:
	}
}

// ErrExited is returned once the agent asked the process to exit (Exit).
var ErrExited = errors.New("process exit requested")

// SetEOFExit sets the code the process exits with when stdin closes now.
func (s *Session) SetEOFExit(code int) { s.eofExit.Store(int32(code)) }

// Mutate runs f (a file write) under the repository mutex, unless the session
// has ended.
func (s *Session) Mutate(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Ctx.Err() != nil {
		return repo.ErrStopped
	}
	return f()
}

// Hang stops the agent for good: no output, stdin ignored (see Run).
func (s *Session) Hang() {
	s.hung.Store(true)
	fmt.Fprintf(s.Log, "hive sim: simulated hang\n")
	for {
		time.Sleep(time.Hour)
	}
}

// Take looks at the messages that arrived while the agent worked and takes
// the first one match accepts. Claude Code folds a message sent mid-turn
// into the running turn, so a real agent would see it at its next request;
// the other messages wait, in order, for the turn to end (Next), as they
// did before.
func (s *Session) Take(match func(string) bool) (string, bool) {
	for drained := false; !drained; {
		select {
		case m := <-s.msgs:
			s.pending = append(s.pending, m)
		default:
			drained = true
		}
	}
	for i, m := range s.pending {
		if match(m) {
			s.pending = slices.Delete(s.pending, i, i+1)
			return m, true
		}
	}
	return "", false
}

// Spend spends d on the task at hand (HIVE_SIM_DELAY: a real agent's edits
// and test runs take time). A message that arrives meanwhile waits for the
// turn's end, and stop, asked then, may end the work early: stopped is true
// and the task is in progress.
func (s *Session) Spend(d time.Duration, stop func() bool) (stopped bool, err error) {
	if d <= 0 {
		return false, nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return false, nil
		case <-s.Ctx.Done():
			return false, repo.ErrStopped
		case m := <-s.msgs:
			s.pending = append(s.pending, m)
			if stop() {
				return true, nil
			}
		}
	}
}
