package claude_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/e2e/e2etest"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
	"github.com/hivectl/hive/internal/testsupport/fakegithub"
)

// What the fake model reads in a fix's prompt: the failing test of a CI
// log, and where a review comment is.
var (
	ciFailing    = regexp.MustCompile(`--- FAIL: (\S+)`)
	reviewTarget = regexp.MustCompile("(?m)^- `([^`]+)`: \\S+: \"([^\"]+)\"")
)

// fixFromPullRequest plays the implementer that hive run --follow sends a
// pull request's CI failure or review comment to: it commits a fix in the
// run's worktree, and its report says what in the prompt it fixed (the
// failing test the CI log names, the comment's place and words), which hive
// posts on the thread and keeps in the round.
func fixFromPullRequest(t *testing.T) fa.Rule {
	return fa.Rule{Name: "pull request fix",
		Match: func(c *fa.Conversation) bool {
			first := e2etest.FirstUserText(c)
			return strings.Contains(first, "## CI fails on the pull request") || strings.Contains(first, "## Review comments on the pull request")
		},
		Reply: func(c *fa.Conversation) fa.Reply {
			first := e2etest.FirstUserText(c)
			var fixed []string
			for _, m := range ciFailing.FindAllStringSubmatch(first, -1) {
				fixed = append(fixed, "made "+m[1]+" pass, as the CI log asked")
			}
			for _, m := range reviewTarget.FindAllStringSubmatch(first, -1) {
				fixed = append(fixed, fmt.Sprintf("at %s: %s", m[1], m[2]))
			}
			if _, k := c.LastPrompt(); k == 0 {
				note := strings.Join(fixed, "; ")
				return fa.Bash(e2etest.Retry("printf '%s\\n' " + e2etest.ShellQuote(note) + " >> FIXES.md && git add FIXES.md && git commit -q -m 'fix: what the pull request asked' -- FIXES.md"))
			}
			report := map[string]any{"status": "complete", "summary": "Fixed: " + strings.Join(fixed, "; "), "confidence": 0.9, "files": []string{"FIXES.md"}}
			b, err := json.Marshal(report)
			if err != nil {
				t.Error(err)
			}
			return fa.Text("<!--HIVE_REPORT\n" + string(b) + "\nHIVE_REPORT-->")
		}}
}

// TestFollowWithClaude: hive, the program, runs hive run --issue 7
// --follow with the real Claude Code in every role (against the fake model
// server), the real gh against the fake GitHub API, the test playing CI
// and the reviewer. CI fails on the pull request's head with a log naming
// TestHealth: Claude Code, as the implementer, is given that log, commits
// a fix, and hive pushes it; CI passes. A review comment "handle the error
// from Encode" on health.go:12 comes: a second fix, and hive's answer on
// the thread. The merge completes the run.
func TestFollowWithClaude(t *testing.T) {
	t.Parallel()
	claude := claudeBin(t)
	bin := e2etest.HiveBin(t)
	root := e2etest.Repo(t, e2etest.HealthService)
	s := fakegithub.New(t, "acme", "svc")
	s.AddIssue(fakegithub.Issue{Number: 7, Title: e2etest.HealthObjective, Body: "GET /healthz answers 200.", Labels: []string{"hive"}})
	s.Origin = filepath.Join(t.TempDir(), "origin.git")
	e2etest.Git(t, root, "init", "-q", "--bare", s.Origin)
	e2etest.Git(t, root, "remote", "add", "origin", s.Origin)
	e2etest.Git(t, root, "remote", "add", "github", s.URL()+".git")
	srv := fa.New(t, fa.Script{Rules: []fa.Rule{fixFromPullRequest(t), e2etest.HealthRoles(root, t.Errorf)}})
	// gh's environment (the fake's proxy and certificate authority) is
	// gh's alone: Claude Code must not see it.
	env := append(subscriberEnv(t, root, claude, srv),
		"PATH="+s.GhOnPath(t)+string(os.PathListSeparator)+filepath.Dir(claude)+string(os.PathListSeparator)+os.Getenv("PATH"))

	var out strings.Builder
	cmd := exec.Command(bin, "run", "--issue", "7", "-w", "quick", "--yes", "--follow", "--follow-every", "300ms")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(e2etest.RunTimeout)
		for !ok() {
			select {
			case err := <-done:
				t.Fatalf("hive ended (%v) while the test waited for %s:\n%s", err, what, out.String())
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	waitFor("the pull request", func() bool { return len(s.PullRequests()) == 1 && s.HeadOf(s.PullRequests()[0].Head) != "" })
	pr := s.PullRequests()[0]
	h1 := s.HeadOf(pr.Head)
	s.AddRun(fakegithub.FailingRun(201, "test", pr.Head, h1, "=== RUN   TestHealth\n--- FAIL: TestHealth (0.00s)\n    health_test.go:21: status 500, want 200\nFAIL"))
	waitFor("the CI fix", func() bool { return s.HeadOf(pr.Head) != h1 })
	h2 := s.HeadOf(pr.Head)
	s.AddRun(fakegithub.PassingRun(202, "test", pr.Head, h2))
	s.AddThread(pr.Number, fakegithub.Thread{Path: "health.go", Line: 12, Comments: []fakegithub.ThreadComment{{Author: "ana", Body: "handle the error from Encode"}}})
	waitFor("the review's fix and answer", func() bool {
		th := s.Threads(pr.Number)
		return s.HeadOf(pr.Head) != h2 && len(th) == 1 && len(th[0].Comments) == 2
	})
	s.AddRun(fakegithub.PassingRun(203, "test", pr.Head, s.HeadOf(pr.Head)))
	s.UpdatePullRequest(pr.Number, func(p *fakegithub.PullRequest) { p.State = "MERGED" })
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "run 1 complete") {
			t.Fatalf("hive run --follow (%v):\n%s", err, out.String())
		}
	case <-time.After(e2etest.RunTimeout):
		t.Fatalf("hive run --follow did not end after the merge:\n%s", out.String())
	}
	t.Logf("hive run --issue 7 --follow:\n%s", out.String())

	// Claude Code was given the failing part of the CI log, and the comment.
	var sawLog, sawComment bool
	for _, r := range srv.MainRequests() {
		first := e2etest.FirstUserText(r.Conv)
		sawLog = sawLog || strings.Contains(first, "health_test.go:21: status 500, want 200")
		sawComment = sawComment || strings.Contains(first, "`health.go:12`: ana: \"handle the error from Encode\"")
	}
	if !sawLog || !sawComment {
		t.Errorf("the implementer's prompts: CI log %v, review comment %v", sawLog, sawComment)
	}
	if c := s.Threads(pr.Number)[0].Comments; !strings.Contains(c[1].Body, "at health.go:12: handle the error from Encode") {
		t.Errorf("hive's answer on the thread: %+v", c)
	}
	if got := e2etest.Git(t, s.Origin, "show", pr.Head+":FIXES.md"); !strings.Contains(got, "made TestHealth pass") || !strings.Contains(got, "at health.go:12") {
		t.Errorf("FIXES.md on the pull request's branch:\n%s", got)
	}
}
