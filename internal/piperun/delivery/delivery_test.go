package delivery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

// repository is a repository on main with one commit.
func repository(t *testing.T) *gitx.Repo {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# svc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Trimmed(t, dir, "init", "-q", "-b", "main")
	gittest.Trimmed(t, dir, "config", "user.name", "Hive Test")
	gittest.Trimmed(t, dir, "config", "user.email", "hive@example.invalid")
	gittest.Trimmed(t, dir, "config", "commit.gpgsign", "false")
	gittest.Trimmed(t, dir, "add", ".")
	gittest.Trimmed(t, dir, "commit", "-q", "-m", "initial")
	repo, err := gitx.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestBranchSlug(t *testing.T) {
	t.Parallel()
	for objective, want := range map[string]string{
		"add a health check endpoint":  "add-a-health-check-endpoint",
		"Fix: the README's typo (#12)": "fix-the-readme-s-typo-12",
		"vérifier l'état du service":   "verifier-l-etat-du-service",
		"  ---  ":                      "",
		"修复登录":                         "",
		"add OAuth login with Google, GitHub and GitLab providers and tests": "add-oauth-login-with-google-github-and",
		strings.Repeat("x", 60): strings.Repeat("x", 40),
	} {
		got := BranchSlug(objective)
		if got != want {
			t.Errorf("BranchSlug(%q) = %q, want %q", objective, got, want)
		}
		if len(got) > 40 {
			t.Errorf("BranchSlug(%q) is %d long", objective, len(got))
		}
	}
}

// A run's branch is hive/WORKFLOW/SLUG, made unique with -2, -3; an
// objective with no ASCII word names it after the run.
func TestNewBranch(t *testing.T) {
	t.Parallel()
	repo := repository(t)
	ctx := context.Background()
	if b := NewBranch(ctx, repo, "quick", "add a health check endpoint", 4); b != "hive/quick/add-a-health-check-endpoint" {
		t.Fatalf("NewBranch = %q", b)
	}
	gittest.Trimmed(t, repo.Root, "branch", "hive/quick/add-a-health-check-endpoint")
	gittest.Trimmed(t, repo.Root, "branch", "hive/quick/add-a-health-check-endpoint-2")
	if b := NewBranch(ctx, repo, "quick", "Add a health-check endpoint!", 4); b != "hive/quick/add-a-health-check-endpoint-3" {
		t.Fatalf("NewBranch beside two = %q", b)
	}
	if b := NewBranch(ctx, repo, "full", "修复登录", 7); b != "hive/full/run-7" {
		t.Fatalf("NewBranch of no ASCII word = %q", b)
	}
	// git cannot keep hive/full/x beside hive/full/x/y, nor under a
	// branch hive/docs.
	gittest.Trimmed(t, repo.Root, "branch", "hive/full/fix/it")
	if b := NewBranch(ctx, repo, "full", "fix", 8); b != "hive/full/fix-2" {
		t.Fatalf("NewBranch beside a longer one = %q", b)
	}
	gittest.Trimmed(t, repo.Root, "branch", "hive/docs")
	if b := NewBranch(ctx, repo, "docs", "write the docs", 9); b != runjournal.Branch(9) {
		t.Fatalf("NewBranch under a branch = %q", b)
	}
}

func TestPRTitle(t *testing.T) {
	t.Parallel()
	if got := PRTitle("  add a health\ncheck   endpoint "); got != "add a health check endpoint" {
		t.Errorf("PRTitle = %q", got)
	}
	long := PRTitle(strings.Repeat("word ", 30))
	if n := len([]rune(long)); n != 72 || !strings.HasSuffix(long, "…") {
		t.Errorf("PRTitle of a long objective = %q (%d)", long, n)
	}
	if got := commandLine([]string{"gh", "--title", "it's $HOME", "--base", "main"}); got != `gh --title 'it'\''s $HOME' --base main` {
		t.Errorf("commandLine = %s", got)
	}
}
