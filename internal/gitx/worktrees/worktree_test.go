package worktrees

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/testsupport/gittest"
)

func worktreeAt(t *testing.T, r *gitx.Repo, path string) *Worktree {
	t.Helper()
	wts, err := List(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return Find(wts, path)
}

func TestWorktreeRoundTrip(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	path := filepath.Join(t.TempDir(), "wt", "01-01")
	branch := gitx.PlanBranch("01", "01-01")
	if err := Add(ctx, r, path, branch, "main"); err != nil {
		t.Fatal(err)
	}
	wt := worktreeAt(t, r, path)
	if wt == nil {
		t.Fatalf("worktree %s not listed", path)
	}
	head, err := r.Git(ctx, "rev-parse", "main")
	if err != nil {
		t.Fatal(err)
	}
	if wt.Branch != branch || wt.Head != strings.TrimSpace(head) || wt.Locked || wt.Prunable || wt.Detached {
		t.Fatalf("unexpected entry %+v (want branch %s at %s)", wt, branch, head)
	}
	wts, _ := List(ctx, r)
	if len(wts) != 2 || gitx.Canonical(wts[0].Path) != gitx.Canonical(r.Root) || wts[0].Branch != "main" {
		t.Fatalf("main worktree not first: %+v", wts)
	}

	// Idempotent: same path and branch again is fine; another branch is not.
	if err := Add(ctx, r, path, branch, "main"); err != nil {
		t.Fatalf("second add: %v", err)
	}
	if err := Add(ctx, r, path, "hive/01/other", "main"); err == nil {
		t.Fatal("add of another branch at a used path succeeded")
	}
	if wts, _ := List(ctx, r); len(wts) != 2 {
		t.Fatalf("idempotent add made %d worktrees", len(wts))
	}

	if err := Remove(ctx, r, path, branch); err != nil {
		t.Fatal(err)
	}
	if worktreeAt(t, r, path) != nil {
		t.Fatal("worktree still listed after remove")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("worktree folder still there: %v", err)
	}
	if _, err := r.Git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		t.Fatal("branch not deleted")
	}
	// Removing again is no error.
	if err := Remove(ctx, r, path, branch); err != nil {
		t.Fatalf("second remove: %v", err)
	}
}

func TestAddWorktreeReusesExistingBranch(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	path := filepath.Join(t.TempDir(), "wt")
	if err := Add(ctx, r, path, "hive/01/01-02", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, path, "commit", "-q", "--allow-empty", "-m", "work"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, r, path, ""); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, r, path, "hive/01/01-02", "main"); err != nil {
		t.Fatal(err)
	}
	subj, err := run(ctx, path, "log", "-1", "--format=%s")
	if err != nil || strings.TrimSpace(subj) != "work" {
		t.Fatalf("branch work lost: %q %v", subj, err)
	}
}

func TestAddWorktreeRefusesBadNames(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	dir := t.TempDir()
	for _, b := range []string{"", "hive/01/a..b", "-rf", "hive/01/x y", "hive/01/a~1", "@{-1}", "hive/01/x.lock", "a\nb", "hive/01/$(rm -rf ~)"} {
		err := Add(ctx, r, filepath.Join(dir, "wt"), b, "main")
		if !errors.Is(err, gitx.ErrBadBranch) {
			t.Errorf("branch %q: got %v, want gitx.ErrBadBranch", b, err)
		} else if !strings.Contains(err.Error(), "invalid branch name") {
			t.Errorf("branch %q: unclear error %v", b, err)
		}
	}
	for _, p := range []string{"", "  ", "a\nb", "x\x00y"} {
		if err := Add(ctx, r, p, "hive/01/ok", "main"); !errors.Is(err, ErrBadPath) {
			t.Errorf("path %q: got %v, want ErrBadPath", p, err)
		}
	}
	for _, b := range []string{"", "--orphan", "no-such-ref"} {
		if err := Add(ctx, r, filepath.Join(dir, "wt"), "hive/01/ok", b); err == nil {
			t.Errorf("base %q accepted", b)
		}
	}
	if wts, _ := List(ctx, r); len(wts) != 1 {
		t.Fatalf("refused adds left worktrees: %+v", wts)
	}
}

func TestPruneWorktrees(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	path := filepath.Join(t.TempDir(), "gone")
	if err := Add(ctx, r, path, "hive/01/gone", "main"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if wt := worktreeAt(t, r, path); wt == nil || !wt.Prunable {
		t.Fatalf("deleted worktree not prunable: %+v", wt)
	}
	if err := Prune(ctx, r); err != nil {
		t.Fatal(err)
	}
	if wt := worktreeAt(t, r, path); wt != nil {
		t.Fatalf("pruned worktree still listed: %+v", wt)
	}
	// The branch survives and can be checked out again at the same path.
	if err := Add(ctx, r, path, "hive/01/gone", "main"); err != nil {
		t.Fatal(err)
	}
}

func TestAddWorktreeOverStaleRegistration(t *testing.T) {
	ctx := context.Background()
	r := gittest.NewTestRepo(t)
	path := filepath.Join(t.TempDir(), "stale")
	if err := Add(ctx, r, path, "hive/01/stale", "main"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(path)
	if err := Add(ctx, r, path, "hive/01/stale", "main"); err != nil {
		t.Fatalf("add over a stale registration: %v", err)
	}
	if wt := worktreeAt(t, r, path); wt == nil || wt.Prunable {
		t.Fatalf("worktree not restored: %+v", wt)
	}
}

// addMany adds n worktrees from n goroutines at once and returns the errors.
func addMany(ctx context.Context, r *gitx.Repo, root string, from, n int) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			id := fmt.Sprintf("01-%02d", from+i)
			errs[i] = Add(ctx, r, filepath.Join(root, id), gitx.PlanBranch("01", id), "main")
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

func checkWorktrees(t *testing.T, r *gitx.Repo, root string, n int) {
	t.Helper()
	wts, err := List(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != n+1 {
		t.Fatalf("%d worktrees listed, want %d", len(wts), n+1)
	}
	for i := range n {
		id := fmt.Sprintf("01-%02d", i)
		wt := Find(wts, filepath.Join(root, id))
		if wt == nil || wt.Branch != gitx.PlanBranch("01", id) {
			t.Errorf("worktree %s: %+v", id, wt)
		}
	}
}

func TestParallelAddWorktrees(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := gittest.NewTestRepo(t)
	root := filepath.Join(t.TempDir(), "worktrees")
	for i, err := range addMany(ctx, r, root, 0, 20) {
		if err != nil {
			t.Errorf("worktree %d: %v", i, err)
		}
	}
	checkWorktrees(t, r, root, 20)
}

const childEnv = "HIVE_GITX_WORKTREE_CHILD" // "<repo>|<root>|<from>|<n>"

// TestWorktreeChild is the body of the child processes of
// TestParallelAddWorktreesTwoProcesses; it does nothing on its own.
func TestWorktreeChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return // only the child processes do the work
	}
	f := strings.Split(spec, "|")
	from, _ := strconv.Atoi(f[2])
	n, _ := strconv.Atoi(f[3])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := gitx.Open(ctx, f[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range addMany(ctx, r, f[1], from, n) {
		if err != nil {
			t.Errorf("worktree %d: %v", from+i, err)
		}
	}
}

func TestParallelAddWorktreesTwoProcesses(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		return // a child runs TestWorktreeChild only
	}
	r := gittest.NewTestRepo(t)
	root := filepath.Join(t.TempDir(), "worktrees")
	cmds := make([]*exec.Cmd, 2)
	outs := make([]strings.Builder, 2)
	for i := range cmds {
		c := exec.Command(os.Args[0], "-test.run=^TestWorktreeChild$", "-test.count=1", "-test.v")
		c.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d|10", childEnv, r.Root, root, i*10))
		c.Stdout, c.Stderr = &outs[i], &outs[i]
		cmds[i] = c
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		err := c.Wait()
		out := outs[i].String()
		if err != nil || strings.Contains(out, ".lock") || !strings.Contains(out, "--- PASS: TestWorktreeChild") {
			t.Errorf("child %d: %v\n%s", i, err, out)
		}
	}
	checkWorktrees(t, r, root, 20)
}

func TestDefaultWorktreeRoot(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/cache")
	t.Setenv("HOME", "/home/u")
	a, err := DefaultRoot("/src/proj")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DefaultRoot("/other/proj")
	a2, _ := DefaultRoot("/src/proj/")
	if a != a2 || a == b {
		t.Fatalf("roots not keyed by path: %s %s %s", a, a2, b)
	}
	dir, base := filepath.Split(a)
	if dir != "/cache/hive/worktrees/" || !strings.HasPrefix(base, "proj-") || len(base) != len("proj-")+12 {
		t.Fatalf("unexpected root %s", a)
	}
}

func TestParseWorktrees(t *testing.T) {
	out := "worktree /r\nHEAD aaa\nbranch refs/heads/main\n\n" +
		"worktree /w1\nHEAD bbb\ndetached\nlocked why not\n\n" +
		"worktree /w2\nHEAD ccc\nbranch refs/heads/hive/01/01-01\nprunable gitdir file points to non-existent location\n\n"
	got := parseWorktrees(out)
	want := []Worktree{
		{Path: "/r", Head: "aaa", Branch: "main"},
		{Path: "/w1", Head: "bbb", Detached: true, Locked: true, LockReason: "why not"},
		{Path: "/w2", Head: "ccc", Branch: "hive/01/01-01", Prunable: true, PruneReason: "gitdir file points to non-existent location"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
