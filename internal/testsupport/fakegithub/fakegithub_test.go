package fakegithub_test

import (
	"encoding/json"
	"os/exec"
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
