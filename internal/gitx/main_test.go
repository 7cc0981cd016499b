package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

// TestMain runs the tests with a temporary home: none writes under the
// developer's own ~/.cache or ~/.hive.
func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// newTestRepo makes a repository with one commit in a temp folder.
func newTestRepo(t *testing.T) *Repo {
	t.Helper()
	return initRepo(t, t.TempDir())
}

// mustGit runs git in r, failing the test on an error; it returns the
// output, trimmed.
func mustGit(t *testing.T, r *Repo, args ...string) string {
	t.Helper()
	out, err := r.Git(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// isolated keeps git and hive off the real home: the tests that call it
// make and delete repositories.
func isolated(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// initRepo makes a repository with one commit in dir (gittest.InitRepo,
// which gitx's own tests cannot import: it imports gitx).
func initRepo(t *testing.T, dir string) *Repo {
	t.Helper()
	ctx := context.Background()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Hive Test"},
		{"config", "user.email", "hive@example.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"commit", "-q", "--allow-empty", "-m", "initial"},
	} {
		if _, err := run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
