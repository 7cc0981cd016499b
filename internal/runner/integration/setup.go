package integration

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/plan/planpath"
)

// Setup prepares a new worktree (a plan's, or hive run's) before an agent
// works in it (workflow.worktree_setup): files git does not carry, such as
// .env, are copied from the user's working tree, then a command (npm ci)
// runs inside it.
type Setup struct {
	Copy    []string // paths relative to the repository root
	Command string   // run with sh -c in the new worktree; "" for none
}

// Run copies s.Copy from the tree from into the new worktree dir, then
// runs s.Command there.
func (s Setup) Run(ctx context.Context, from, dir string) error {
	for _, rel := range s.Copy {
		clean, err := planpath.SafeRelPath(rel)
		if err != nil {
			return fmt.Errorf("worktree_setup.copy %q: %w", rel, err)
		}
		src := filepath.Join(from, filepath.FromSlash(clean))
		if _, err := os.Stat(src); os.IsNotExist(err) {
			continue // nothing to copy on this machine
		}
		if err := copyFile(src, filepath.Join(dir, filepath.FromSlash(clean))); err != nil {
			return fmt.Errorf("worktree_setup.copy %s: %w", clean, err)
		}
	}
	if strings.TrimSpace(s.Command) == "" {
		return nil
	}
	// The command is the user's own configuration, like a Makefile recipe,
	// never text from a plan or an agent.
	cmd := exec.CommandContext(ctx, "sh", "-c", s.Command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("worktree_setup.command failed: %v\n%s", err, clipLines(string(out), 20))
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// clipLines keeps the last n lines of s: a failing command's end says most.
func clipLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
