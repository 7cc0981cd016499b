package checks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/plan/load"
	"github.com/hivectl/hive/internal/plan/validate"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testrun"
)

// Worktree is a run's worktree, where hive runs its checks with the
// project's commands.
type Worktree struct {
	Dir string
	// TestCommand and BuildCommand are the project's configured commands
	// (commands.test, commands.build), a line each for sh -c; "" finds
	// them from the project's files.
	TestCommand, BuildCommand string
	// SetupCommand readies each new worktree (workflow.worktree_setup):
	// with one, a command that could not run is not blamed on a fresh
	// checkout.
	SetupCommand string
	// Note, when set, is told what a check meets worth telling of job.
	Note func(job, text string)
}

func (w Worktree) note(job, text string) {
	if w.Note != nil {
		w.Note(job, text)
	}
}

// Lint lints the architect's phase in the run's worktree: its errors, one
// per line with file and line.
func (w Worktree) Lint(dir string) []string {
	proj, err := load.Project(w.Dir)
	if err != nil {
		return []string{err.Error()}
	}
	ph, err := proj.FindPhase(filepath.Base(dir))
	if err != nil || ph.Dir != dir {
		return []string{fmt.Sprintf("%s: no plans were written there (write %s/NN-01-PLAN.md and commit it)", dir, dir)}
	}
	if len(ph.Plans) == 0 {
		return []string{fmt.Sprintf("%s: the folder holds no PLAN.md file", dir)}
	}
	var errs []string
	for _, d := range append(ph.Diagnostics, validate.InProject(proj, ph)...) {
		if d.Severity == plan.SeverityError {
			errs = append(errs, d.String())
		}
	}
	return errs
}

// RunTests runs the project's tests in the run's worktree.
func (w Worktree) RunTests(ctx context.Context, c roleplan.Command) roleplan.Event {
	t, note := w.Tests(ctx, w.running("tests")) // as the result is shown
	if note != "" {
		w.note(c.Job, note)
	}
	return roleplan.Event{Type: roleplan.EvTestsRan, Job: c.Job, Attempt: c.Attempt, Tests: t}
}

// running says on the run's output that job's command starts, which
// may take minutes (a project's whole build) before its result.
func (w Worktree) running(job string) func(cmd string) {
	return func(cmd string) { w.note(job, "running "+cmd) }
}

// Tests runs the project's tests in the run's worktree, telling started
// (when not nil) the command first; note says why there were none to run.
// No test run is None, never a pass.
func (w Worktree) Tests(ctx context.Context, started func(cmd string)) (*roleplan.Tests, string) {
	cmd, err := testrun.Find(w.Dir, w.TestCommand)
	switch {
	case errors.Is(err, testrun.ErrNoTests):
		return &roleplan.Tests{None: true, Output: err.Error()}, err.Error()
	case err != nil:
		// A project file the agents broke is a failure, never a pass.
		return &roleplan.Tests{ExitCode: -1, Output: err.Error()}, ""
	}
	if started != nil {
		started(cmd.String())
	}
	res, err := testrun.Run(ctx, w.Dir, cmd)
	if err != nil {
		res.ExitCode = -1
		res.Output = err.Error()
	}
	t := &roleplan.Tests{Command: res.Command, ExitCode: res.ExitCode, Passed: res.Passed, Failed: res.Failed,
		Failing: res.Failing, Output: res.Output, None: res.NoTests}
	if t.None {
		return t, cmd.String() + " found no test to run; to run others, set commands.test in .hive/config.json"
	}
	w.unrunnable(t)
	return t, ""
}

// unrunnable marks a result whose command could not run at all (a shell's
// "command not found", a program that could not start) and says what is
// likely missing: the run's worktree is a fresh checkout, without what git
// does not carry, such as the project's installed dependencies.
func (w Worktree) unrunnable(t *roleplan.Tests) {
	t.Unrunnable = t.ExitCode == 127 || t.ExitCode == -1
	if mod := missingModule(t); mod != "" {
		// python3 -m pytest without pytest: no test ran, none failed;
		// an implementer sent to fix that would fix nothing.
		t.Unrunnable = true
		t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is not installed for %s: install the project's test dependencies (pip install %s, or the project's own: uv sync, poetry install, pip install -e '.[dev]'), then answer retry; or set commands.test in .planning/config.json", mod, firstWord(t.Command), mod)
		return
	}
	runner, _, _ := strings.Cut(strings.TrimSpace(t.Command), " ")
	if prog := missingProgram(t.Output); prog != "" && (prog == firstWord(t.Command) || prog == runner) {
		// Not the worktree's fault: the command's program itself is not
		// here (a program its scripts call is a missing dependency),
		// whatever the exit code its runner gave (uv's is 2).
		t.Unrunnable = true
		where, how := "here (not on PATH)", "install it"
		switch {
		case runner != prog:
			where, how = "in the project's "+runner+" environment", "add it to the project's dev dependencies"
		case prog == "pnpm" || prog == "yarn":
			how = "install it (`corepack enable` does, with Node)"
		case prog == "bun":
			how = "install it (bun.sh)"
		}
		t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is not installed %s: %s, then answer retry; or set commands.build and commands.test in .planning/config.json to commands this machine has", prog, where, how)
		return
	}
	if !t.Unrunnable || strings.TrimSpace(w.SetupCommand) != "" {
		return
	}
	install, example := "install what it needs", "npm ci"
	if _, err := os.Stat(filepath.Join(w.Dir, "package.json")); err == nil {
		example = installCommand(testrun.PackageManager(w.Dir))
		if _, err := os.Stat(filepath.Join(w.Dir, "node_modules")); err != nil {
			install = "run " + example
		}
	}
	t.Output = strings.TrimRight(t.Output, "\n") + fmt.Sprintf("\n\nhive: %s is a fresh checkout of your commits, without what git does not carry (installed dependencies): %s there, then answer retry; to have every run do it, set workflow.worktree_setup.command in .planning/config.json (%q, say)", w.Dir, install, example)
}

// missingModule is the module of a `python -m MODULE` command that the
// interpreter says it does not have, "" otherwise.
func missingModule(t *roleplan.Tests) string {
	f := strings.Fields(t.Command)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-m" && strings.HasPrefix(path.Base(f[0]), "python") {
			if strings.Contains(t.Output, "No module named "+f[i+1]) {
				return f[i+1]
			}
			return ""
		}
	}
	return ""
}

// firstWord is the program a command line starts: the first word, or
// the program an environment runner runs ("uv run pytest": pytest).
func firstWord(cmd string) string {
	f := strings.Fields(cmd)
	switch {
	case len(f) > 2 && f[1] == "run" && (f[0] == "uv" || f[0] == "poetry" || f[0] == "pipenv"):
		return f[2]
	case len(f) > 0:
		return f[0]
	}
	return ""
}

// installCommand installs a JavaScript project's dependencies as its
// lockfile has them, with its package manager.
func installCommand(manager string) string {
	switch manager {
	case "pnpm":
		return "pnpm install --frozen-lockfile"
	case "yarn":
		return "yarn install --frozen-lockfile"
	case "bun":
		return "bun install --frozen-lockfile"
	}
	return "npm ci"
}

// missingProgramRE finds the program that could not start: exec's "not
// found in $PATH", or a shell's "command not found".
var missingProgramRE = regexp.MustCompile(`exec: "([^"]+)": executable file not found|(?:^|\s)([\w.+-]+): (?:command )?not found|Failed to spawn: ` + "`" + `([\w.+-]+)` + "`" + `|Command not found: ([\w.+-]+)`)

// missingProgram is the program a check's output says is not installed,
// "" when it says none.
func missingProgram(output string) string {
	if m := missingProgramRE.FindStringSubmatch(output); m != nil {
		return m[1] + m[2] + m[3] + m[4]
	}
	return ""
}

// RunBuild runs the project's build in the run's worktree, for a build
// step; base is the run's base commit. A project with nothing to build
// skips the step, with a note.
func (w Worktree) RunBuild(ctx context.Context, c roleplan.Command, base string) roleplan.Event {
	ev := roleplan.Event{Type: roleplan.EvBuilt, Job: c.Job, Attempt: c.Attempt}
	// How much the run changed, as hive counts it (routing's input).
	changed, _ := Changes(ctx, &gitx.Repo{Root: w.Dir}, base)
	ev.Changed = len(changed)
	t, note := w.Build(ctx, w.running(c.Job))
	if note != "" {
		w.note(c.Job, note)
	}
	ev.Tests = t
	return ev
}

// Build runs the project's build in the run's worktree, telling started
// (when not nil) the command first; note says why there was nothing to
// build. Nothing to build is None, never a pass.
func (w Worktree) Build(ctx context.Context, started func(cmd string)) (*roleplan.Tests, string) {
	cmd, ok := testrun.FindBuild(w.Dir, w.BuildCommand)
	if !ok {
		why := "no build command found (go.mod, Cargo.toml, a package.json build script, a Makefile build target): nothing to build; to build, set commands.build in .hive/config.json"
		return &roleplan.Tests{None: true, Output: why}, why
	}
	if started != nil {
		started(cmd.String())
	}
	res, err := testrun.Run(ctx, w.Dir, cmd)
	if err != nil {
		res.ExitCode, res.Output = -1, err.Error()
	}
	t := &roleplan.Tests{Command: cmd.String(), ExitCode: res.ExitCode, Output: res.Output}
	w.unrunnable(t)
	return t, ""
}

// Changes are the files the run changed since base and the lines it
// added, in the run's worktree wt.
func Changes(ctx context.Context, wt *gitx.Repo, base string) (files, added []string) {
	if base == "" {
		return nil, nil
	}
	if out, err := wt.Git(ctx, "diff", "--name-only", base, "--"); err == nil {
		files = strings.Fields(out)
	}
	if out, err := wt.Git(ctx, "diff", "-U0", base, "--"); err == nil {
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
				added = append(added, l[1:])
			}
		}
	}
	return slices.Compact(files), added
}
