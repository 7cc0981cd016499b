package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary be hive itself: testscript puts it in PATH
// as "hive", and the sim agent re-executes it as `hive __sim`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"hive": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the .txtar scripts in testdata/script against the real
// binary in temporary git repositories.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: setupGitEnv,
	})
}

// setupGitEnv gives the scripts a git identity and a home of their own, so
// commits work on a machine with no git configuration.
func setupGitEnv(env *testscript.Env) error {
	env.Setenv("HOME", env.WorkDir)
	env.Setenv("GIT_AUTHOR_NAME", "hive test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@hive.invalid")
	env.Setenv("GIT_COMMITTER_NAME", "hive test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@hive.invalid")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return nil
}
