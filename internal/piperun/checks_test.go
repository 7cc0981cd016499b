package piperun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// A project with no test and nothing to build: the run completes, but the
// build step and the tester are skipped, never done, the notes say how to
// configure the commands, and the computed confidence counts no pass.
// With commands.test and commands.build set, hive runs them instead.
func TestNoTestsIsNoPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.CommitAll(t, dir, "initial")
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick)
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	states := jobs(s)
	if s.Outcome != roleplan.OutcomeComplete || !strings.Contains(states, "build=skipped") || !strings.Contains(states, "tester=skipped") {
		t.Errorf("outcome %s, jobs %s; want build and tester skipped", s.Outcome, states)
	}
	if s.Tests == nil || !s.Tests.None || s.Tests.Ran() {
		t.Errorf("the last test run %+v; want None", s.Tests)
	}
	lines := strings.Join(o.Observer.(*notes).lines, "\n")
	for _, want := range []string{"note tester no tests found: ", "set commands.test in .hive/config.json", "note build no build command found", "set commands.build"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the notes lack %q:\n%s", want, lines)
		}
	}
	for _, sc := range runjournal.Confidence(o.Journal, res.Run.ID) {
		for _, c := range sc.Checks {
			passed := c.OK && !c.Skipped
			if (c.Name == "build passes" || c.Name == "tests pass" || c.Name == "tests ran and were read" || c.Name == "pass rate") && passed {
				t.Errorf("%s: %q passed with nothing run: %s", sc.Role, c.Name, sc)
			}
		}
	}

	// The configured commands run, by sh -c, in the run's worktree.
	o = options(t, repo, workflows.Quick)
	o.TestCommand, o.BuildCommand = "grep -q notes README.md && echo '1 passed in 0.01s'", "test -f README.md"
	res, err = Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s = res.Snapshot
	if states := jobs(s); !strings.Contains(states, "build=done") || !strings.Contains(states, "tester=done") || s.Tests == nil || s.Tests.Command != o.TestCommand || s.Tests.None {
		t.Errorf("with commands: jobs %s, tests %+v", states, s.Tests)
	}
}
