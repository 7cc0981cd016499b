package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ErrStopped is returned when stdin closed while the agent was working: the
// session is over and nothing more may touch the repository.
var ErrStopped = errors.New("session ended (stdin closed)")

// lockBudget bounds how long a git command is retried while another process
// holds one of the repository's lock files.
const lockBudget = 15 * time.Second

// Git runs git commands in one repository. mu is held for the duration of
// each command (and of each file write, see session.Session.Mutate) so that
// the session can wait for the command in flight before it exits: a stopped
// sim never leaves half a commit behind.
type Git struct {
	dir   string
	mu    *sync.Mutex
	ctx   context.Context // cancelled when stdin closes
	extra []string        // "-c" options placed before the subcommand
}

// NewGit runs git in dir, holding mu around each command, until ctx is
// cancelled (when stdin closes); extra are "-c" options placed before the
// subcommand.
func NewGit(ctx context.Context, dir string, mu *sync.Mutex, extra []string) *Git {
	return &Git{dir: dir, mu: mu, ctx: ctx, extra: extra}
}

// Run executes git with args (never through a shell) and returns its
// trimmed stdout. Failures caused by another process's lock file are retried
// with a jittered backoff for up to lockBudget, because several agents share
// one working tree.
func (g *Git) Run(args ...string) (string, error) {
	deadline := time.Now().Add(lockBudget)
	wait := 20 * time.Millisecond
	for {
		out, stderr, err := g.once(args)
		if err == nil || errors.Is(err, ErrStopped) || !isLockError(stderr) || time.Now().After(deadline) {
			if err != nil && !errors.Is(err, ErrStopped) {
				return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr))
			}
			return out, err
		}
		select {
		case <-g.ctx.Done():
			return "", ErrStopped
		case <-time.After(wait + rand.N(wait)):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

func (g *Git) once(args []string) (string, string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return "", "", ErrStopped
	}
	// Deliberately not exec.CommandContext: a started command runs to its end.
	cmd := exec.Command("git", append(append([]string{}, g.extra...), args...)...)
	cmd.Dir = g.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), stderr.String(), err
}

// isLockError recognises git's messages about lock files held by another
// process ("Unable to create '.git/index.lock': File exists", "cannot lock
// ref 'HEAD'") and about a ref moved underneath it by a concurrent commit.
func isLockError(stderr string) bool {
	s := strings.ToLower(stderr)
	return strings.Contains(s, ".lock") || strings.Contains(s, "cannot lock") ||
		strings.Contains(s, "unable to lock") || strings.Contains(s, "but expected")
}
