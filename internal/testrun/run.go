package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command is how a project runs its tests: a program and its arguments,
// run without a shell, or, for a command the user configured as one line,
// that line run by sh -c (the user's own configuration, like a gate).
type Command struct {
	Argv  []string
	Shell string
}

func (c Command) String() string {
	if c.Shell != "" {
		return c.Shell
	}
	return strings.Join(c.Argv, " ")
}

// ErrNoTests says hive found no way to run the project's tests.
var ErrNoTests = errors.New("no test command: hive looks for go.mod, package.json with a test script, Cargo.toml, or pytest's files (pyproject.toml, pytest.ini, setup.cfg, tests/); set tests.command in .hive/config.json")

// Detect finds the test command of the project at root from its files.
func Detect(root string) (Command, error) {
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(root, name))
		return err == nil
	}
	switch {
	case has("go.mod"):
		return Command{Argv: []string{"go", "test", "-v", "./..."}}, nil
	case has("Cargo.toml"):
		return Command{Argv: []string{"cargo", "test"}}, nil
	case has("package.json"):
		data, err := os.ReadFile(filepath.Join(root, "package.json"))
		if err != nil {
			return Command{}, err
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if err := json.Unmarshal(data, &pkg); err != nil {
			return Command{}, fmt.Errorf("package.json: %v", err)
		}
		if pkg.Scripts["test"] == "" {
			return Command{}, ErrNoTests
		}
		return Command{Argv: []string{"npm", "test", "--silent"}}, nil
	case has("pytest.ini") || has("pyproject.toml") || has("setup.cfg") || has("tests") && has("setup.py"):
		return Command{Argv: []string{"python3", "-m", "pytest"}}, nil
	}
	return Command{}, ErrNoTests
}

// Result is one run of the tests.
type Result struct {
	Command  string
	ExitCode int
	Counts
	// Output is the output's last lines, for the implementer who fixes
	// the failures.
	Output string
}

// Run runs c in dir and reads its output. An exit code is a result, not
// an error: the error is for a command that could not run at all.
func Run(ctx context.Context, dir string, c Command) (Result, error) {
	var cmd *exec.Cmd
	switch {
	case c.Shell != "":
		cmd = exec.CommandContext(ctx, "sh", "-c", c.Shell)
	case len(c.Argv) > 0:
		cmd = exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	default:
		return Result{}, ErrNoTests
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := Result{Command: c.String(), Counts: Parse(out.String()), Output: tail(out.String(), 80)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("run the tests (%s): %w", c, err)
	}
	return res, nil
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d lines above", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
