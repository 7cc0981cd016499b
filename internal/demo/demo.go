package demo

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The templates are stored with a ".tmpl" suffix where the real name would
// make the Go tool treat them as part of hive (.go files) or as another
// module (go.mod); "all:" keeps .planning and .gitignore.
var (
	//go:embed all:project
	projectFS embed.FS
	//go:embed all:checkpoints
	checkpointsFS embed.FS
)

// PhaseDir is the repository-relative folder of the demo's one phase.
const PhaseDir = ".planning/phases/01-core-library"

// Create makes dir a git repository holding the bookshelf demo project: a
// small Go CLI and a GSD .planning/ folder whose phase 01-core-library has six
// autonomous plans in three waves (01-01, 01-02 | 01-03, 01-04 | 01-05, 01-06)
// with a diamond 01-01 → {01-03, 01-04} → 01-05. Everything is in one
// initial commit on branch main. dir must be missing or empty.
func Create(dir string) error {
	return create(dir, false)
}

// CreateWithCheckpoints is Create with two plans of wave 2 stopping for a
// human: 01-03 holds a checkpoint:decision (storage format) and 01-04 a
// checkpoint:human-verify (search ranking); both are autonomous: false.
func CreateWithCheckpoints(dir string) error {
	return create(dir, true)
}

func create(dir string, checkpoints bool) error {
	if err := emptyDir(dir); err != nil {
		return err
	}
	if err := copyTree(projectFS, "project", dir); err != nil {
		return err
	}
	msg := "Initial commit: bookshelf CLI and phase 1 plans"
	if checkpoints {
		if err := copyTree(checkpointsFS, "checkpoints", dir); err != nil {
			return err
		}
		msg += " (with checkpoints)"
	}
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		// A local identity and no signing: the demo must commit on any machine.
		{"config", "user.name", "Hive Demo"},
		{"config", "user.email", "demo@hive.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", msg},
	}
	for _, args := range steps {
		if err := git(dir, args...); err != nil {
			return fmt.Errorf("demo repository %s: %w", dir, err)
		}
	}
	return nil
}

// emptyDir creates dir or checks that it is empty: the demo never writes
// over someone's files.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("demo: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("demo: %s is not empty; choose a new directory", dir)
	}
	return nil
}

// copyTree writes the embedded tree under root into dir, dropping the
// ".tmpl" suffix.
func copyTree(fsys fs.FS, root, dir string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		if rel == "" {
			return nil
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, ".tmpl")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return nil
	})
}

// git runs one git command in dir with an argument list, never a shell.
func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
