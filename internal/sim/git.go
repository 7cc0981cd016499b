package sim

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

// errStopped is returned when stdin closed while the agent was working: the
// session is over and nothing more may touch the repository.
var errStopped = errors.New("session ended (stdin closed)")

// lockBudget bounds how long a git command is retried while another process
// holds one of the repository's lock files.
const lockBudget = 15 * time.Second

// git runs git commands in one repository. mu is held for the duration of
// each command (and of each file write, see agent.mutate) so that Main can
// wait for the command in flight before it exits: a stopped sim never leaves
// half a commit behind.
type git struct {
	dir   string
	mu    *sync.Mutex
	ctx   context.Context // cancelled when stdin closes
	extra []string        // "-c" options placed before the subcommand
}

// run executes git with args (never through a shell) and returns its
// trimmed stdout. Failures caused by another process's lock file are retried
// with a jittered backoff for up to lockBudget, because several agents share
// one working tree.
func (g *git) run(args ...string) (string, error) {
	deadline := time.Now().Add(lockBudget)
	wait := 20 * time.Millisecond
	for {
		out, stderr, err := g.once(args)
		if err == nil || errors.Is(err, errStopped) || !isLockError(stderr) || time.Now().After(deadline) {
			if err != nil && !errors.Is(err, errStopped) {
				return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr))
			}
			return out, err
		}
		select {
		case <-g.ctx.Done():
			return "", errStopped
		case <-time.After(wait + rand.N(wait)):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

func (g *git) once(args []string) (string, string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return "", "", errStopped
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

// planCommit is one commit of the plan the sim runs, found by its trailers.
type planCommit struct {
	Hash, Short, Subject string
	Task                 int // Hive-Task number, 0 if none
	Fix                  int // Hive-Fix task number, 0 if none
	WIP                  int // Hive-WIP task number (work in progress), 0 if none
	Summary              bool
}

// planLog returns the commits reachable from HEAD, and not from since
// (when set), that carry the trailer "Hive-Plan: <id>", oldest first. HEAD,
// not --all: a task counts as done only when its work is in this checkout,
// so a worktree recreated from the base branch redoes the work an abandoned
// branch holds.
func (g *git) planLog(id, since string) ([]planCommit, error) {
	rng := "HEAD"
	if since != "" {
		rng = since + "..HEAD"
	}
	out, err := g.run("log", rng, "--fixed-strings", "--grep=Hive-Plan: "+id,
		"--format=%H%x1f%h%x1f%s%x1f%B%x1e")
	if err != nil {
		// Only then is HEAD looked at: an unborn branch has no commits
		// yet, and one process per look-up is what a plan's start costs.
		if errors.Is(err, errStopped) {
			return nil, err
		}
		if _, verr := g.run("rev-parse", "--verify", "--quiet", "HEAD"); verr != nil && !errors.Is(verr, errStopped) {
			return nil, nil
		}
		return nil, err
	}
	var list []planCommit
	for _, rec := range strings.Split(out, "\x1e") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		c := planCommit{Hash: f[0], Short: f[1], Subject: f[2]}
		// The grep matches prefixes too ("01-0" in "01-02"): keep exact ids.
		if c.readTrailers(id, f[3]) {
			list = append(list, c)
		}
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, nil
}

// readTrailers sets c's task, fix, WIP and summary marks for plan id from
// a commit message's trailer lines, and reports whether it names the plan
// (Hive-Plan: id).
func (c *planCommit) readTrailers(id, message string) (mine bool) {
	for _, line := range strings.Split(message, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Hive-Plan":
			mine = mine || v == id
		case "Hive-Summary":
			c.Summary = c.Summary || v == id
		case "Hive-Task":
			if n, ok := taskRef(v, id); ok {
				c.Task = n
			}
		case "Hive-Fix":
			if n, ok := taskRef(v, id); ok {
				c.Fix = n
			}
		case "Hive-WIP":
			if n, ok := taskRef(v, id); ok {
				c.WIP = n
			}
		}
	}
	return mine
}

// committedShort is the abbreviated hash in the line `git commit` prints
// for the commit it made ("[branch 1a2b3c4] subject", "[main (root-commit)
// 1a2b3c4] subject"); false when out has no such line.
func committedShort(out string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		head, _, ok := strings.Cut(strings.TrimSpace(line), "]")
		if !ok || !strings.HasPrefix(head, "[") {
			continue
		}
		f := strings.Fields(head)
		if h := f[len(f)-1]; len(f) >= 2 && isHex(h) {
			return h, true
		}
	}
	return "", false
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return len(s) >= 4
}

// taskRef parses "<id>/<n>".
func taskRef(v, id string) (int, bool) {
	rest, ok := strings.CutPrefix(v, id+"/")
	if !ok {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscanf(rest, "%d", &n); err != nil || fmt.Sprint(n) != rest {
		return 0, false
	}
	return n, true
}
