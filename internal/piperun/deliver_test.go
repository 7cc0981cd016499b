package piperun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/piperun/delivery"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/testsupport/fakegithub"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
	"github.com/hivectl/hive/internal/workflows"
)

// snapshotFiles reads every named file of dir, and git status.
func snapshotFiles(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{"git status": gittest.Trimmed(t, dir, "status", "--porcelain", "--untracked-files=all")}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// The user's uncommitted work is never touched: a modified file, a staged
// change and an untracked file are byte for byte what they were, git
// status says the same, and the work stays on the run's branch with the
// commands to take it.
func TestDirtyTreeUntouched(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	root := repo.Root
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# svc\n\nmy local edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// staged\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Trimmed(t, root, "add", "main.go")
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// staged, then edited again\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshotFiles(t, root, "README.md", "main.go", "notes.txt")
	index := gittest.Trimmed(t, root, "diff", "--cached")
	head := gittest.Trimmed(t, root, "rev-parse", "HEAD")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick)
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	const branch = "hive/quick/add-a-health-check-endpoint"
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || res.Merged || res.Branch != branch {
		t.Fatalf("outcome %s merged %v branch %s notes %q", res.Snapshot.Outcome, res.Merged, res.Branch, res.Notes)
	}
	after := snapshotFiles(t, root, "README.md", "main.go", "notes.txt")
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed:\n%s\nwas:\n%s", k, after[k], v)
		}
	}
	if gittest.Trimmed(t, root, "diff", "--cached") != index || gittest.Trimmed(t, root, "rev-parse", "HEAD") != head {
		t.Error("the index or HEAD changed")
	}
	if gittest.Trimmed(t, root, "stash", "list") != "" {
		t.Error("something was stashed")
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{
		"your working tree has uncommitted changes, so hive did not merge: the work is on branch " + branch,
		"  git merge " + branch,
		"  git push -u origin " + branch,
		"  gh pr create --base main --head " + branch + " --title 'add a health check endpoint' --body-file " + filepath.Join(root, ".hive", "pr", "run-1.md"),
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if !repo.BranchExists(ctx, branch) {
		t.Errorf("branch %s is gone", branch)
	}
	// The journal says where the work is: hive report and a resume read it.
	rep, err := runreport.Build(ctx, o.Journal, repo, res.Run)
	if err != nil || rep.Branch != branch || len(rep.Commits) == 0 {
		t.Fatalf("report: branch %q commits %q, %v", rep.Branch, rep.Commits, err)
	}
}

// A role that ends its turn with a file it did not commit (a real agent
// that forgets one) loses nothing: delivery merges the commits, sets the
// file aside at a ref of its own before it removes the run's worktree,
// and the notes say where.
func TestLeftoversKeptAtDelivery(t *testing.T) {
	t.Parallel()
	repo := gittest.Service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, options(t, repo, workflows.Quick, "HIVE_SIM_FAULTS=implementer="+faults.FaultUncommitted))
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || !res.Merged {
		t.Fatalf("outcome %s merged %v notes %q", res.Snapshot.Outcome, res.Merged, res.Notes)
	}
	const ref = "refs/hive/left/run-1/end"
	const file = "hive_sim_uncommitted.txt"
	if got := gittest.Trimmed(t, repo.Root, "show", ref+":"+file); got != "left uncommitted by the sim implementer" {
		t.Fatalf("%s:%s = %q", ref, file, got)
	}
	if got := gittest.Trimmed(t, repo.Root, "diff", "--name-only", ref+"~", ref); got != file {
		t.Errorf("the ref holds more than the leftover: %q", got)
	}
	// The ref's parent is the run's last commit, now merged.
	if parent, head := gittest.Trimmed(t, repo.Root, "rev-parse", ref+"~"), gittest.Trimmed(t, repo.Root, "rev-parse", "HEAD"); parent != head {
		t.Errorf("the ref's parent %s is not the merged tip %s", parent, head)
	}
	if _, err := os.Stat(filepath.Join(repo.Root, file)); !os.IsNotExist(err) {
		t.Errorf("the leftover reached the user's checkout: %v", err)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "the roles left uncommitted changes, which are not in the run's commits: kept at "+ref) {
		t.Errorf("the notes do not say where the leftovers are:\n%s", notes)
	}
	if refs := gittest.Trimmed(t, repo.Root, "for-each-ref", "--format=%(refname)", "refs/hive/left/"); refs != ref {
		t.Errorf("refs/hive/left holds %q", refs)
	}
}

// A file the user keeps out of git (ignored by a .gitignore of their
// own, not committed) where the work adds one is not overwritten: git
// would do so without a word, so hive does not merge.
func TestIgnoredFileInTheWay(t *testing.T) {
	repo := gittest.Service(t)
	root := repo.Root
	const name = "hive_sim_change.go" // what the sim implementer writes
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(name+"\n.gitignore\n"), 0o644)
	mine := filepath.Join(root, name)
	os.WriteFile(mine, []byte("mine\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, options(t, repo, workflows.Quick))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Fatalf("the ignored file was overwritten: %q", b)
	}
	if gittest.Trimmed(t, root, "ls-tree", "--name-only", res.Branch, name) != name {
		t.Fatalf("the run's work has no %s: the test needs it", name)
	}
	if res.Merged || !strings.Contains(strings.Join(res.Notes, "\n"), "files of its own where the run's work adds them ("+name+"), so hive did not merge") {
		t.Fatalf("merged %v notes %q", res.Merged, res.Notes)
	}
	// Complete, but not where it was meant to go: a script tells it apart.
	if !strings.HasPrefix(res.Undelivered, "your working tree has files of its own where the run's work adds them") {
		t.Errorf("undelivered %q", res.Undelivered)
	}
}

// origin makes a bare repository the remote origin of repo.
func origin(t *testing.T, root string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "origin.git")
	gittest.Trimmed(t, root, "init", "-q", "--bare", bare)
	gittest.Trimmed(t, root, "remote", "add", "origin", bare)
	return bare
}

// fakeGitHub puts the real gh on PATH, answering as GitHub for the
// repository in root (the fake's acme/svc, its git remote github, its
// pushes going to bare, the repository's origin): logged in unless
// loggedIn is false.
func fakeGitHub(t *testing.T, root, bare string, loggedIn bool) *fakegithub.Server {
	t.Helper()
	s := fakegithub.New(t, "acme", "svc")
	s.Origin = bare
	s.SetLoggedOut(!loggedIn)
	gittest.Trimmed(t, root, "remote", "add", "github", s.URL()+".git")
	t.Setenv("PATH", s.GhOnPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return s
}

// --pr pushes the branch to origin and opens a pull request with gh: the
// objective its title, the run's report its description, the user's
// branch its base. Nothing is merged.
func TestPullRequest(t *testing.T) {
	repo := gittest.Service(t)
	bare := origin(t, repo.Root)
	gh := fakeGitHub(t, repo.Root, bare, true)
	head := gittest.Trimmed(t, repo.Root, "rev-parse", "HEAD")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick)
	o.PR = true
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	const branch = "hive/quick/add-a-health-check-endpoint"
	if res.Snapshot.Outcome != roleplan.OutcomeComplete || res.Merged || !res.Pushed || res.PullRequest != gh.URL()+"/pull/1" {
		t.Fatalf("outcome %s merged %v pushed %v pr %q notes %q", res.Snapshot.Outcome, res.Merged, res.Pushed, res.PullRequest, res.Notes)
	}
	if gittest.Trimmed(t, repo.Root, "rev-parse", "HEAD") != head {
		t.Error("main moved: the pull request is the delivery")
	}
	if got, want := gittest.Trimmed(t, bare, "rev-parse", branch), gittest.Trimmed(t, repo.Root, "rev-parse", branch); got != want {
		t.Errorf("origin's %s is %s, want %s", branch, got, want)
	}
	prs := gh.PullRequests()
	if len(prs) != 1 || prs[0].Title != "add a health check endpoint" || prs[0].Base != "main" || prs[0].Head != branch || prs[0].State != "OPEN" {
		t.Fatalf("the pull requests: %+v", prs)
	}
	text := prs[0].Body
	for _, w := range []string{"add a health check endpoint", "hive run 1, workflow quick: complete.", "| implementer | done | 1 |", "### Commits", "hive report 1"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("the description lacks %q:\n%s", w, text)
		}
	}
	if got := strings.Join(res.Notes, "\n"); !strings.Contains(got, "pushed "+branch+" to origin") || !strings.Contains(got, "opened pull request "+gh.URL()+"/pull/1") {
		t.Errorf("notes %q", res.Notes)
	}
	if gittest.Trimmed(t, repo.Root, "status", "--porcelain") != "" {
		t.Errorf("the tree is not clean: %s", gittest.Trimmed(t, repo.Root, "status", "--porcelain"))
	}
}

// A followed run's pull request targets the branch the run started from:
// the user switched to another one meanwhile (here, elsewhere), and its
// base is still main, where the run's branch comes from.
func TestPullRequestTargetsTheRunsBranch(t *testing.T) {
	repo := gittest.Service(t)
	bare := origin(t, repo.Root)
	gh := fakeGitHub(t, repo.Root, bare, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick)
	o.NoMerge = true
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Spec.Target != "main" {
		t.Fatalf("the run's spec says it started from %q, want main", res.Snapshot.Spec.Target)
	}
	gittest.Trimmed(t, repo.Root, "checkout", "-q", "-b", "elsewhere")
	w := &delivery.Work{Repo: repo, Journal: o.Journal, Run: res.Run, Branch: res.Branch}
	ev := w.OpenPullRequest(ctx, roleplan.Command{Type: roleplan.CmdDeliver, Job: roleplan.FollowJob, Attempt: 1}, res.Snapshot)
	if !ev.OK {
		t.Fatalf("no pull request: %s %q", ev.Reason, ev.Notes)
	}
	if prs := gh.PullRequests(); len(prs) != 1 || prs[0].Base != "main" || prs[0].Head != res.Branch {
		t.Fatalf("the pull requests: %+v", prs)
	}
}

// --pr without a logged-in gh pushes, then says the command to open the
// pull request; --push pushes only; a push that fails says how to retry,
// and the run is still complete.
func TestPublishFallbacks(t *testing.T) {
	const branch = "hive/quick/add-a-health-check-endpoint"
	for _, tc := range []struct {
		name            string
		origin, gh, pr  bool
		pushed          bool
		want, wantNotGH []string
	}{
		{name: "pr, gh logged out", origin: true, gh: true, pr: true, pushed: true,
			want: []string{"pushed " + branch + " to origin", "gh is not logged in (gh auth status failed), so hive opened no pull request: log in with gh auth login, then run:\n  gh pr create --base main --head " + branch}},
		{name: "push", origin: true, pushed: true,
			want: []string{"pushed " + branch + " to origin", "open a pull request with:\n  gh pr create --base main --head " + branch}},
		{name: "pr, no origin", gh: true, pr: true,
			want: []string{"could not push " + branch + " to origin (", "push it with:\n  git push -u origin " + branch + "\nthen open the pull request with:\n  gh pr create"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.Service(t)
			bare := ""
			if tc.origin {
				bare = origin(t, repo.Root)
			}
			var gh *fakegithub.Server
			if tc.gh {
				gh = fakeGitHub(t, repo.Root, bare, false)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			o := options(t, repo, workflows.Quick)
			o.PR, o.Push = tc.pr, !tc.pr
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot.Outcome != roleplan.OutcomeComplete || res.Merged || res.Pushed != tc.pushed || res.PullRequest != "" {
				t.Fatalf("outcome %s merged %v pushed %v pr %q notes %q", res.Snapshot.Outcome, res.Merged, res.Pushed, res.PullRequest, res.Notes)
			}
			// A push that failed left the work short of where it was to go;
			// a pull request gh could not open did not (the branch is out).
			wantUndelivered := ""
			if !tc.pushed {
				wantUndelivered = "could not push " + branch + " to origin ("
			}
			if !strings.HasPrefix(res.Undelivered, wantUndelivered) || (wantUndelivered == "") != (res.Undelivered == "") {
				t.Errorf("undelivered %q", res.Undelivered)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, w := range tc.want {
				if !strings.Contains(notes, w) {
					t.Errorf("notes lack %q:\n%s", w, notes)
				}
			}
			if gh != nil && len(gh.PullRequests()) > 0 {
				t.Errorf("a pull request was opened: %+v", gh.PullRequests())
			}
			if !repo.BranchExists(ctx, branch) {
				t.Errorf("branch %s is gone", branch)
			}
		})
	}
}

// A run that stops for a human keeps its branch and how it publishes: the
// resume (without --pr) works on the same branch and opens the pull
// request. A second run of the same objective gets a branch of its own.
func TestResumeKeepsBranchAndPublish(t *testing.T) {
	repo := gittest.Service(t)
	gh := fakeGitHub(t, repo.Root, origin(t, repo.Root), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options(t, repo, workflows.Quick, faults.EnvFaults+"=tester=challenge#1,tester=challenge#2")
	o.PR = true
	_, err := Run(ctx, o)
	var needs *NeedsHumanError
	if !errors.As(err, &needs) {
		t.Fatalf("Run = %v, want a stop for a human", err)
	}
	o.PR, o.Resume, o.Answer = false, true, "override"
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	const branch = "hive/quick/add-a-health-check-endpoint"
	if res.Branch != branch || !res.Pushed || res.PullRequest == "" || res.Merged {
		t.Fatalf("branch %s pushed %v pr %q merged %v notes %q", res.Branch, res.Pushed, res.PullRequest, res.Merged, res.Notes)
	}
	if prs := gh.PullRequests(); len(prs) != 1 || prs[0].Head != branch {
		t.Errorf("the pull requests: %+v", prs)
	}
	res, err = Run(ctx, options(t, repo, workflows.Quick))
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != branch+"-2" || !res.Merged {
		t.Fatalf("second run: branch %s merged %v notes %q", res.Branch, res.Merged, res.Notes)
	}
}

// A run journaled before branches were named (its spec has none) goes on
// on hive/run/N.
func TestOldRunKeepsItsBranch(t *testing.T) {
	t.Parallel()
	j := journaltest.NewMemory()
	run, err := j.CreateRun(runjournal.Key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m := pipeline.New()
	if _, err := m.Step(roleplan.Event{Type: roleplan.EvStarted, Spec: &roleplan.Spec{Objective: "x", Workflow: workflows.Quick}}); err != nil {
		t.Fatal(err)
	}
	s := &driver{executor: &executor{run: run}, m: m}
	if b := s.runBranch(context.Background()); b != "hive/run/1" {
		t.Fatalf("runBranch = %q", b)
	}
}
