package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport/fakegithub"
)

// TestFollowingAPullRequest: hive run --issue 7 --follow with sim agents,
// the real gh and the fake GitHub API, the test playing CI and the
// reviewer. The pull request is opened from the issue; hive is SIGKILLed
// while it waits for CI and started again (--resume): one pull request, and
// the failure that comes after is handled once. CI fails on the head with
// a log naming TestHealth: the implementer is given that log and its fix is
// pushed. A failure of an older commit and a resolved comment are there all
// along and never routed. A review comment on health.go:12 after the fix:
// a second fix, and an answer on its thread. The merge completes the run;
// hive report (text and --json) shows each round.
func TestFollowingAPullRequest(t *testing.T) {
	t.Parallel()
	// The second fix takes a while (4 s): the reviewer pushes meanwhile.
	p := newGitHubProject(t, "HIVE_SIM_DELAY=400ms", "HIVE_SIM_FAULTS=implementer=slow#3")
	hive, s, dir, origin, env := p.hive, p.s, p.dir, p.origin, p.env
	s.AddIssue(fakegithub.Issue{Number: 7, Title: "Add a health check endpoint", Body: "GET /healthz answers 200.", Labels: []string{"hive"}})
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	base := git("-C", dir, "rev-parse", "HEAD")
	logPath := filepath.Join(t.TempDir(), "hive.log")
	// A hive started, and its end: ended is closed once it has exited,
	// with its error in err.
	type started struct {
		pid   int
		ended chan struct{}
		err   error
	}
	var run *started
	start := func(args ...string) {
		t.Helper()
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(hive, args...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, f, f
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := &started{pid: cmd.Process.Pid, ended: make(chan struct{})}
		go func() {
			r.err = cmd.Wait()
			close(r.ended)
		}()
		t.Cleanup(func() {
			syscall.Kill(-r.pid, syscall.SIGKILL) // hive and what it started
			<-r.ended
		})
		run = r
	}
	output := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(4 * time.Minute)
		for !ok() {
			select {
			case <-run.ended:
				t.Fatalf("hive ended (%v) while the test waited for %s; hive said:\n%s", run.err, what, output())
			case <-deadline:
				t.Fatalf("timed out waiting for %s; hive said:\n%s", what, output())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	headOf, failing, passing := s.HeadOf, fakegithub.FailingRun, fakegithub.PassingRun

	start("run", "--issue", "7", "-w", "quick", "--agent", "sim", "--yes", "--follow", "--follow-every", "200ms")
	waitFor("the pull request", func() bool { return len(s.PullRequests()) == 1 })
	waitFor("hive to follow it", func() bool { return strings.Contains(output(), "following pull request #") })
	pr := s.PullRequests()[0]
	branch, h1 := pr.Head, headOf(pr.Head)
	if !strings.Contains(pr.Body, "Closes acme/svc#7") || h1 == "" {
		t.Fatalf("the pull request %+v, head %q", pr, h1)
	}
	// Killed while it waits for CI, and started again.
	syscall.Kill(-run.pid, syscall.SIGKILL)
	<-run.ended
	// On the pull request all along: a failure of an older commit, and a
	// comment already resolved. Neither may reach an agent.
	s.AddRun(failing(100, "e2e", branch, base, "--- FAIL: TestOldE2E (0.01s)\n    e2e_test.go:9: stale"))
	s.AddThread(pr.Number, fakegithub.Thread{Path: "health.go", Line: 3, Resolved: true,
		Comments: []fakegithub.ThreadComment{{Author: "ana", Body: "rename the old handler"}}})
	start("run", "--resume", "--agent", "sim", "--follow-every", "200ms")
	s.AddRun(failing(101, "test", branch, h1, "=== RUN   TestHealth\n--- FAIL: TestHealth (0.00s)\n    health_test.go:21: status 500, want 200\nFAIL\nexit status 1"))

	waitFor("the first fix", func() bool { return headOf(branch) != h1 })
	fixed := headOf(branch)
	s.AddRun(passing(102, "test", branch, fixed))
	// The reviewer applies a suggestion on GitHub (a commit on the branch),
	// then comments: the second fix is made on top of the suggestion.
	clone := filepath.Join(t.TempDir(), "reviewer")
	git("clone", "-q", "-b", branch, origin, clone)
	if err := os.WriteFile(filepath.Join(clone, "SUGGESTION.md"), []byte("a reviewer's suggestion\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("-C", clone, "add", "SUGGESTION.md")
	git("-C", clone, "-c", "user.name=Ana", "-c", "user.email=ana@example.invalid", "commit", "-q", "-m", "Apply suggestion from review")
	git("-C", clone, "push", "-q", "origin", branch)
	h2 := headOf(branch)
	s.AddThread(pr.Number, fakegithub.Thread{Path: "health.go", Line: 12,
		Comments: []fakegithub.ThreadComment{{Author: "ana", Body: "handle the error from Encode"}}})

	// While the implementer makes the second fix, the reviewer pushes
	// another suggestion: hive's fix goes on top of it.
	waitFor("the second fix to start", func() bool { return strings.Contains(output(), "started (attempt 3)") })
	if err := os.WriteFile(filepath.Join(clone, "SUGGESTION.md"), []byte("a reviewer's suggestion, and another\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("-C", clone, "-c", "user.name=Ana", "-c", "user.email=ana@example.invalid", "commit", "-q", "-am", "Apply another suggestion")
	git("-C", clone, "push", "-q", "origin", branch)
	suggested := headOf(branch)
	waitFor("the second fix and the answer on the thread", func() bool {
		th := s.Threads(pr.Number)
		return headOf(branch) != suggested && len(th) == 2 && len(th[1].Comments) == 2
	})
	h3 := headOf(branch)
	s.AddRun(passing(103, "test", branch, h3))
	s.AddRun(passing(104, "e2e", branch, h3))
	s.UpdatePullRequest(pr.Number, func(p *fakegithub.PullRequest) { p.State = "MERGED" })
	select {
	case <-run.ended:
	case <-time.After(4 * time.Minute):
		t.Fatalf("hive run --resume did not end after the merge:\n%s", output())
	}
	if run.err != nil || !strings.Contains(output(), "run 1 complete") {
		t.Fatalf("hive run --resume (%v):\n%s", run.err, output())
	}

	t.Logf("hive run, then hive run --resume:\n%s", output())
	if out, err := exec.Command("git", "-C", origin, "merge-base", "--is-ancestor", suggested, h3).CombinedOutput(); err != nil {
		t.Errorf("the second fix (%s) is not on top of the reviewer's suggestions (%s): %v %s", h3, suggested, err, out)
	}
	if !strings.Contains(output(), "the pull request's branch moved while the fix was made: the fix is pushed on top of it (rebased)") {
		t.Errorf("hive did not say it put the fix on top of the reviewer's push:\n%s", output())
	}
	if prs := s.PullRequests(); len(prs) != 1 {
		t.Errorf("%d pull requests, want the one: %+v", len(prs), prs)
	}
	th := s.Threads(pr.Number)
	if len(th[0].Comments) != 1 {
		t.Errorf("the resolved thread was answered: %+v", th[0])
	}
	if c := th[1].Comments; len(c) != 2 || !strings.HasPrefix(c[1].Body, "Addressed by hive's implementer:") || !strings.Contains(c[1].Body, "the comment on health.go:12") {
		t.Errorf("the answer on health.go:12: %+v", th[1])
	}
	report := func(args ...string) string {
		cmd := exec.Command(hive, append([]string{"report", "1"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hive report %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var rep struct {
		Outcome     string
		PullRequest struct {
			PR     struct{ Number int }
			Rounds []struct {
				Head, Pushed, Fix string
				CI, Comments      []string
			}
		} `json:"pull_request"`
		Timeline struct {
			GitHub int64 `json:"github_ns"`
			Spans  []struct{ Kind string }
		}
	}
	if err := json.Unmarshal([]byte(report("--json")), &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.PullRequest.Rounds
	if rep.Timeline.GitHub <= 0 || !slices.ContainsFunc(rep.Timeline.Spans, func(sp struct{ Kind string }) bool { return sp.Kind == "pull-request" }) {
		t.Errorf("the timeline does not count the waits on the pull request apart: %+v", rep.Timeline)
	}
	if rep.Outcome != "complete" || rep.PullRequest.PR.Number != pr.Number || len(r) != 2 {
		t.Fatalf("the report: %+v", rep)
	}
	if r[0].Head != h1 || r[0].Pushed != fixed || len(r[0].CI) != 1 || !strings.HasPrefix(r[0].CI[0], "test ") || len(r[0].Comments) != 0 ||
		!strings.Contains(r[0].Fix, "the failing TestHealth") || strings.Contains(r[0].Fix, "TestOldE2E") || strings.Contains(r[0].Fix, "health.go:3") {
		t.Errorf("round 1 (CI on %s, fixed as %s): %+v", h1, fixed, r[0])
	}
	if r[1].Head != h2 || r[1].Pushed != h3 || len(r[1].CI) != 0 || !slices.Equal(r[1].Comments, []string{"health.go:12: handle the error from Encode"}) ||
		!strings.Contains(r[1].Fix, "the comment on health.go:12") {
		t.Errorf("round 2 (the comment on %s, fixed as %s): %+v", h2, h3, r[1])
	}
	text := report()
	t.Logf("hive report 1:\n%s", text)
	if !strings.Contains(text, fmt.Sprintf("pull request #%d (%s/pull/%d): merged, 2 round(s) of fixes", pr.Number, s.URL(), pr.Number)) ||
		!strings.Contains(text, "round 2 on "+h2[:7]+": comment health.go:12: handle the error from Encode → fix pushed as "+h3[:7]) {
		t.Errorf("hive report:\n%s", text)
	}
	logCmd := exec.Command(hive, "log", "--pipeline", "--run", "1")
	logCmd.Dir, logCmd.Env = dir, env
	log, err := logCmd.CombinedOutput()
	for _, want := range []string{"pull request opened: #" + fmt.Sprint(pr.Number), "pull request #" + fmt.Sprint(pr.Number) + ": open, head " + h1[:7] + ", 2 failed check(s), 1 review thread(s)",
		"fix pushed: #" + fmt.Sprint(pr.Number), "pull request #" + fmt.Sprint(pr.Number) + ": merged"} {
		if err != nil || !strings.Contains(string(log), want) {
			t.Errorf("hive log --pipeline (%v) lacks %q:\n%s", err, want, log)
		}
	}
	for _, stale := range []string{"not routed: CI e2e failed on " + base[:7], "not routed: the comment on health.go:3 is resolved"} {
		if !strings.Contains(output(), stale) {
			t.Errorf("hive did not say %q:\n%s", stale, output())
		}
	}
}
