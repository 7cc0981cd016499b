package gitx

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Objects reads commit messages through one long-lived `git cat-file
// --batch`, so that checking a plan's commits costs a pipe round trip, not
// a git process per plan. It is safe for concurrent use; Close ends it.
type Objects struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// OpenObjects starts the reader on the repository's object store (shared by
// all its worktrees).
func (r *Repo) OpenObjects(ctx context.Context) (*Objects, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = r.Root
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &Objects{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// Message returns the message of commit hash, or ok false when there is no
// such commit.
func (o *Objects) Message(hash string) (string, bool) {
	if !hexHash.MatchString(hash) {
		return "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := io.WriteString(o.in, hash+"\n"); err != nil {
		return "", false
	}
	header, err := o.out.ReadString('\n')
	if err != nil {
		return "", false
	}
	f := strings.Fields(header) // "<sha> <type> <size>" or "<name> missing"
	if len(f) != 3 {
		return "", false
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return "", false
	}
	body := make([]byte, size+1) // the object and its newline
	if _, err := io.ReadFull(o.out, body); err != nil {
		return "", false
	}
	if f[1] != "commit" {
		return "", false
	}
	text := string(body[:size])
	if i := strings.Index(text, "\n\n"); i >= 0 {
		return text[i+2:], true
	}
	return "", true
}

// Close ends the reader.
func (o *Objects) Close() error {
	o.in.Close()
	return o.cmd.Wait()
}
