package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/roleplan"
)

// A build or test command that could not run at all (exit 127) in the
// run's fresh worktree says what is likely missing and how to go on; a
// configured set-up command is not second-guessed.
func TestUnrunnableSaysWhatTheCheckoutLacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"build": "next build"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Worktree{Dir: dir}
	got := &roleplan.Tests{Command: "npm run build", ExitCode: 127, Output: "sh: 1: next: not found\n"}
	w.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "sh: 1: next: not found\n\nhive: "+dir+" is a fresh checkout") ||
		!strings.Contains(got.Output, "run npm ci there, then answer retry") || !strings.Contains(got.Output, "workflow.worktree_setup.command") {
		t.Errorf("unrunnable build: %+v", got)
	}

	w.SetupCommand = "npm ci"
	got = &roleplan.Tests{Command: "npm run build", ExitCode: 127, Output: "sh: 1: next: not found"}
	w.unrunnable(got)
	if !got.Unrunnable || got.Output != "sh: 1: next: not found" {
		t.Errorf("with a set-up command: %+v", got)
	}
	// A pnpm project: its install command is pnpm's; and pnpm itself
	// missing is said as that, whatever the set-up command.
	if err := os.WriteFile(filepath.Join(dir, "pnpm-lock.yaml"), []byte("lockfileVersion: '9.0'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.SetupCommand = ""
	got = &roleplan.Tests{Command: "pnpm run build", ExitCode: 127, Output: "sh: 1: next: not found"}
	w.unrunnable(got)
	if !strings.Contains(got.Output, "run pnpm install --frozen-lockfile there") || !strings.Contains(got.Output, `("pnpm install --frozen-lockfile", say)`) {
		t.Errorf("a pnpm project's missing dependencies: %+v", got)
	}
	w.SetupCommand = "pnpm install"
	got = &roleplan.Tests{Command: "pnpm run build", ExitCode: -1, Output: `run pnpm run build: exec: "pnpm": executable file not found in $PATH`}
	w.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pnpm is not installed here (not on PATH)") || strings.Contains(got.Output, "fresh checkout") {
		t.Errorf("pnpm itself missing: %+v", got)
	}
	// python3 -m pytest without pytest exits 1: no test failed, and no
	// implementer is sent to fix it.
	got = &roleplan.Tests{Command: "python3 -m pytest", ExitCode: 1, Output: "/usr/bin/python3: No module named pytest\n"}
	w.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pytest is not installed for python3: install the project's test dependencies (pip install pytest") {
		t.Errorf("pytest missing: %+v", got)
	}
	got = &roleplan.Tests{Command: "uv run pytest", ExitCode: 2, Output: "error: Failed to spawn: `pytest`\n  Caused by: No such file or directory (os error 2)\n"}
	w.unrunnable(got)
	if !got.Unrunnable || !strings.Contains(got.Output, "hive: pytest is not installed in the project's uv environment: add it to the project's dev dependencies") {
		t.Errorf("uv without pytest (its exit code is 2): %+v", got)
	}
	got = &roleplan.Tests{Command: "uv run pytest", ExitCode: -1, Output: `run uv run pytest: exec: "uv": executable file not found in $PATH`}
	w.unrunnable(got)
	if !strings.Contains(got.Output, "hive: uv is not installed here (not on PATH): install it") {
		t.Errorf("uv missing: %+v", got)
	}
	failing := &roleplan.Tests{Command: "go test ./...", ExitCode: 1, Output: "FAIL"}
	w.unrunnable(failing)
	if failing.Unrunnable || failing.Output != "FAIL" {
		t.Errorf("a failing run is not unrunnable: %+v", failing)
	}
}
