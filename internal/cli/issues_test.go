package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport/fakegithub"
)

// gitHubProject is pipelineFixture's repository (dir) beside the fake
// GitHub API of acme/svc: its pushes go to a bare repository (origin) that
// the server knows as its pull requests' remote, and its remote github
// names the repository on the server, which is how gh knows which it is.
// env runs hive, found on PATH, with the real gh on PATH (the fake's
// environment gh's alone), under CI, with extra added.
type gitHubProject struct {
	hive, dir, origin string
	s                 *fakegithub.Server
	env               []string
}

func newGitHubProject(t *testing.T, extra ...string) gitHubProject {
	t.Helper()
	hive, err := exec.LookPath("hive")
	if err != nil {
		t.Fatalf("hive is not in PATH (TestMain puts the test binary there): %v", err)
	}
	p := gitHubProject{hive: hive, dir: pipelineFixture(t), origin: filepath.Join(t.TempDir(), "origin.git"), s: fakegithub.New(t, "acme", "svc")}
	p.s.Origin = p.origin
	for _, args := range [][]string{{"init", "-q", "--bare", p.origin}, {"-C", p.dir, "remote", "add", "origin", p.origin},
		{"-C", p.dir, "remote", "add", "github", p.s.URL() + ".git"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	p.env = append(os.Environ(), "PATH="+p.s.GhOnPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"), "CI=true")
	p.env = append(p.env, extra...)
	return p
}

// TestRunFromAnIssue: with the real gh against the fake GitHub API, hive
// issues lists the issues labelled hive and says how to run one; hive run
// --issue 7 takes the issue's title as its objective, and the pull
// request's description it writes says that it closes the issue. An issue
// that is not there, and --issue with --resume, are refused with a way on.
func TestRunFromAnIssue(t *testing.T) {
	t.Parallel()
	p := newGitHubProject(t)
	s, dir, origin := p.s, p.dir, p.origin
	s.AddIssue(fakegithub.Issue{Number: 7, Title: "Add a health check endpoint", Body: "GET /healthz should answer 200 while the service runs.",
		Labels: []string{"hive", "enhancement"}, Comments: []fakegithub.Comment{{Author: "ana", Body: "Keep it unauthenticated."}}})
	s.AddIssue(fakegithub.Issue{Number: 8, Title: "Fix the docs typo", Labels: []string{"docs"}})
	run := func(args ...string) (string, error) {
		cmd := exec.Command(p.hive, args...)
		cmd.Dir, cmd.Env = dir, p.env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("issues")
	if err != nil || !strings.Contains(out, "#7  Add a health check endpoint  hive, enhancement") || strings.Contains(out, "#8") ||
		!strings.Contains(out, "run one with: hive run --issue 7") {
		t.Errorf("hive issues (%v):\n%s", err, out)
	}
	out, err = run("issues", "--label", "", "--json")
	var listed []struct{ Number int }
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 2 {
		t.Errorf("hive issues --label '' --json (%v):\n%s", err, out)
	}

	out, err = run("run", "--issue", "7", "-w", "quick", "--agent", "sim", "--yes", "--pr")
	if err != nil || !strings.Contains(out, "issue #7: Add a health check endpoint ("+s.URL()+"/issues/7)") ||
		!strings.Contains(out, "run: Add a health check endpoint (workflow quick)") || !strings.Contains(out, "run 1 complete") ||
		!strings.Contains(out, "opened pull request "+s.URL()+"/pull/9") {
		t.Fatalf("hive run --issue 7 --pr (%v):\n%s", err, out)
	}
	prs := s.PullRequests()
	if len(prs) != 1 || prs[0].Title != "Add a health check endpoint" || prs[0].Base != "main" || !strings.HasPrefix(prs[0].Head, "hive/quick/") ||
		!strings.Contains(prs[0].Body, "\nCloses acme/svc#7\n") || !strings.Contains(prs[0].Body, "hive run 1, workflow quick: complete.") {
		t.Errorf("the pull request: %+v", prs)
	}
	if out, err := exec.Command("git", "-C", origin, "rev-parse", "--verify", prs[0].Head).CombinedOutput(); err != nil {
		t.Errorf("the run's branch was not pushed to origin: %v\n%s", err, out)
	}

	// github.labels picks the workflow from the issue's labels.
	if err := os.WriteFile(filepath.Join(dir, ".hive", "config.json"), []byte(`{"github": {"labels": {"bug": "bugfix", "enhancement": "quick"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A pull request open for the run's branch already (as when a run is
	// resumed after it opened one) is updated, never doubled.
	open := s.AddPullRequest(fakegithub.PullRequest{Title: "Add a health check endpoint", Body: "an earlier description",
		Head: "hive/quick/add-a-health-check-endpoint-2", Base: "main", State: "OPEN"})
	out, err = run("run", "--issue", "7", "--agent", "sim", "--yes", "--pr")
	if err != nil || !strings.Contains(out, "workflow quick, for the issue's label enhancement (github.labels in .hive/config.json)") ||
		!strings.Contains(out, "(workflow quick)") || !strings.Contains(out, "run 2 complete") ||
		!strings.Contains(out, fmt.Sprintf("updated pull request %s/pull/%d (it was open already)", s.URL(), open)) {
		t.Errorf("hive run --issue 7 with github.labels, its branch's pull request open (%v):\n%s", err, out)
	}
	if prs := s.PullRequests(); len(prs) != 2 || !strings.Contains(prs[1].Body, "hive run 2, workflow quick: complete.") {
		t.Errorf("the pull requests: %+v", prs)
	}

	// gh logged out: --pr pushes and prints the command that opens the
	// pull request; --json says what was done.
	s.SetLoggedOut(true)
	out, err = run("run", "Add a metrics endpoint", "-w", "quick", "--agent", "sim", "--yes", "--pr", "--json")
	if err != nil || !strings.Contains(out, `"pushed":true`) || !strings.Contains(out, `"pull_request":""`) ||
		!strings.Contains(out, `gh is not logged in (gh auth status failed), so hive opened no pull request: log in with gh auth login, then run:\n  gh pr create --base main --head hive/quick/add-a-metrics-endpoint --title 'Add a metrics endpoint' --body-file `) {
		t.Errorf("hive run --pr --json, gh logged out (%v):\n%s", err, out)
	}
	if prs := s.PullRequests(); len(prs) != 2 {
		t.Errorf("a pull request was opened with gh logged out: %+v", prs)
	}
	s.SetLoggedOut(false)

	if out, err := run("run", "--issue", "99", "--agent", "sim", "--yes"); err == nil || !strings.Contains(out, "--issue: gh issue view 99:") {
		t.Errorf("an issue that is not there (%v):\n%s", err, out)
	}
	if out, err := run("run", "--issue", "7", "--resume"); err == nil || !strings.Contains(out, "--issue is for a new run") {
		t.Errorf("--issue with --resume (%v):\n%s", err, out)
	}
	for _, args := range [][]string{{"--follow", "--push"}, {"--follow", "--no-merge"}, {"--follow", "--backend", "temporal"}} {
		out, err := run(append([]string{"run", "x", "--agent", "sim"}, args...)...)
		if err == nil || !strings.Contains(out, "--follow") || !strings.Contains(out, "leave out") {
			t.Errorf("hive run %v (%v):\n%s", args, err, out)
		}
	}
	if out, err := run("run", "--issue", "seven", "--agent", "sim", "--yes"); err == nil || !strings.Contains(out, `"seven" is not an issue: give its number (7) or its address`) {
		t.Errorf("--issue seven (%v):\n%s", err, out)
	}
}
