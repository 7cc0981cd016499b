package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// M is what a TestMain runs: *testing.M, or testscript's TestingM.
type M interface{ Run() int }

type isolated struct{ m M }

// WithTempHome wraps a TestMain's m so that its tests run with HOME,
// XDG_CACHE_HOME and XDG_CONFIG_HOME pointing into a fresh temporary
// folder, removed afterwards, and their temporary files in memory where
// the machine has room for them (memTempDir). Every process a test starts (hive, git, the
// agent CLIs) inherits that environment, so worktrees, caches and global
// settings never land in the real home. Use it in every package's
// TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }
func WithTempHome(m M) M { return isolated{m} }

func (i isolated) Run() int {
	if tmp, ok := memTempDir(); ok {
		defer os.Unsetenv("TMPDIR")
		defer os.RemoveAll(tmp)
		os.Setenv("TMPDIR", tmp)
	}
	home, err := os.MkdirTemp("", "hive-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsupport: a temporary home:", err)
		return 2
	}
	defer os.RemoveAll(home)
	// Go commands the tests run (a project's go test) keep the real build
	// cache: an empty one in the temporary home would rebuild the standard
	// library, a minute each time.
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	for k, v := range map[string]string{
		"HOME":            home,
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
	} {
		os.Setenv(k, v)
	}
	return i.m.Run()
}
