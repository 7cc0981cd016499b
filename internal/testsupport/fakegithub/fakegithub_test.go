package fakegithub_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport/fakegithub"
)

// gh runs the real gh against s and returns its output.
func gh(t *testing.T, s *fakegithub.Server, args ...string) string {
	t.Helper()
	cmd := exec.Command(fakegithub.GhBinary(t), args...)
	cmd.Env = append(s.Env(t.TempDir()), "HOME="+t.TempDir(), "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gh %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestIssuesWithTheRealGh: gh issue view and gh issue list, as hive runs
// them, read the server's issues over TLS.
func TestIssuesWithTheRealGh(t *testing.T) {
	t.Parallel()
	s := fakegithub.New(t, "acme", "svc")
	s.AddIssue(fakegithub.Issue{Number: 7, Title: "Add a health check endpoint", Body: "GET /healthz should answer 200.",
		Labels: []string{"hive", "enhancement"}, Comments: []fakegithub.Comment{{Author: "ana", Body: "Keep it unauthenticated."}}})
	s.AddIssue(fakegithub.Issue{Number: 8, Title: "Docs typo", Labels: []string{"docs"}})
	s.AddIssue(fakegithub.Issue{Number: 9, Title: "Old", Labels: []string{"hive"}, Closed: true})

	var view struct {
		Title, Body, URL string
		Labels           []struct{ Name string }
		Comments         []struct {
			Author struct{ Login string }
			Body   string
		}
	}
	out := gh(t, s, "issue", "view", "7", "-R", s.Repo(), "--json", "title,body,labels,comments,url")
	if err := json.Unmarshal([]byte(out), &view); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if view.Title != "Add a health check endpoint" || view.Body != "GET /healthz should answer 200." || len(view.Labels) != 2 ||
		len(view.Comments) != 1 || view.Comments[0].Author.Login != "ana" || view.URL != s.URL()+"/issues/7" {
		t.Errorf("gh issue view 7: %+v", view)
	}

	var list []struct {
		Number int
		Title  string
	}
	out = gh(t, s, "issue", "list", "-R", s.Repo(), "--label", "hive", "--json", "number,title")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Number != 7 {
		t.Errorf("gh issue list --label hive: %+v (%v)\n%s", list, err, out)
	}

	cmd := exec.Command(fakegithub.GhBinary(t), "issue", "view", "99", "-R", s.Repo())
	cmd.Env = append(s.Env(t.TempDir()), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("gh issue view 99 found an issue that does not exist:\n%s", out)
	}
}

// TestPullRequestWithTheRealGh: gh pr create, as hive runs it in a checkout
// whose remote names the server, opens a pull request there; a second for
// the same branch is refused, as GitHub refuses it.
func TestPullRequestWithTheRealGh(t *testing.T) {
	t.Parallel()
	s := fakegithub.New(t, "acme", "svc")
	s.AddIssue(fakegithub.Issue{Number: 7, Title: "Add a health check endpoint"})
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "initial"},
		{"remote", "add", "origin", s.URL() + ".git"}, {"checkout", "-q", "-b", "hive/quick/health"}, {"commit", "-q", "--allow-empty", "-m", "work"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	create := func() (string, error) {
		cmd := exec.Command(fakegithub.GhBinary(t), "pr", "create", "--base", "main", "--head", "hive/quick/health", "--title", "Add a health check endpoint", "--body", "Closes acme/svc#7")
		cmd.Dir = dir
		cmd.Env = append(s.Env(t.TempDir()), "HOME="+t.TempDir(), "PATH="+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := create()
	if err != nil || !strings.Contains(out, s.URL()+"/pull/8") {
		t.Fatalf("gh pr create (%v):\n%s", err, out)
	}
	prs := s.PullRequests()
	if len(prs) != 1 || !reflect.DeepEqual(prs[0], fakegithub.PullRequest{Number: 8, Title: "Add a health check endpoint", Body: "Closes acme/svc#7", Head: "hive/quick/health", Base: "main", State: "OPEN"}) {
		t.Errorf("pull requests: %+v", prs)
	}
	if out, err := create(); err == nil || !strings.Contains(out, "already exists") {
		t.Errorf("a second gh pr create for the branch (%v):\n%s", err, out)
	}
}
