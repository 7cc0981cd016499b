package gittest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
)

// Run runs git with args in dir, failing the test on an error.
func Run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// NewRepo makes a git repository with the given files and one commit.
func NewRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@hive.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@hive.invalid")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Run(t, dir, "init", "-q", "-b", "main")
	Run(t, dir, "add", "-A")
	Run(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// WriteFile writes text to path, making its folders.
func WriteFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Isolated keeps git and hive off the real home: the tests that call it
// make and delete repositories and worktrees.
func Isolated(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// InitRepo makes a repository with one commit in dir.
func InitRepo(t *testing.T, dir string) *gitx.Repo {
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
		if _, err := (&gitx.Repo{Root: dir}).Git(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	r, err := gitx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// NewTestRepo makes a repository with one commit in a temp folder.
func NewTestRepo(t *testing.T) *gitx.Repo {
	t.Helper()
	return InitRepo(t, t.TempDir())
}

// Output runs git with args in dir and returns what it printed, failing
// the test on an error.
func Output(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Trimmed is Output without its surrounding space: a hash, a branch.
func Trimmed(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Output(t, dir, args...))
}

// Service is a small Go web service (one route and its test), committed
// on main by Hive Test: the repository hive run's tests give their roles.
func Service(t *testing.T) *gitx.Repo {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":       "module example.com/svc\n\ngo 1.22\n",
		"main.go":      "package main\n\nimport \"net/http\"\n\nfunc routes() *http.ServeMux { return http.NewServeMux() }\n\nfunc main() { http.ListenAndServe(\":8080\", routes()) }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestRoutes(t *testing.T) {\n\tif routes() == nil {\n\t\tt.Fatal(\"no routes\")\n\t}\n}\n",
		"README.md":    "# svc\n",
	} {
		WriteFile(t, filepath.Join(dir, name), body)
	}
	CommitAll(t, dir, "initial")
	r, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// CommitAll makes dir a repository on main whose first commit, subject,
// holds the files in it.
func CommitAll(t *testing.T, dir, subject string) {
	t.Helper()
	Trimmed(t, dir, "init", "-q", "-b", "main")
	Trimmed(t, dir, "config", "user.name", "Hive Test")
	Trimmed(t, dir, "config", "user.email", "hive@example.invalid")
	Trimmed(t, dir, "config", "commit.gpgsign", "false")
	Trimmed(t, dir, "add", ".")
	Trimmed(t, dir, "commit", "-q", "-m", subject)
}
