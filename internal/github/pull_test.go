package github

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport/fakegithub"
)

// withFake points gh at a fake GitHub API for the test's length and
// returns the server and the gh to run.
func withFake(t *testing.T) (*fakegithub.Server, string) {
	t.Helper()
	gh := fakegithub.GhBinary(t)
	s := fakegithub.New(t, "acme", "svc")
	// TMPDIR: gh caches a run's log archive there by the run's id.
	for _, kv := range append(s.Env(t.TempDir()), "TMPDIR="+t.TempDir()) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return s, gh
}

const head, older = "c0ffee0000000000000000000000000000000002", "c0ffee0000000000000000000000000000000001"

// TestFollowingAPullRequest: what hive reads of a pull request it opened,
// with the real gh: its head, its CI runs, a failed run's log and its
// review threads, and a reply on a thread.
func TestFollowingAPullRequest(t *testing.T) {
	s, gh := withFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	pr := s.AddPullRequest(fakegithub.PullRequest{Title: "Add a health check endpoint", Head: "hive/issue-7", Base: "main",
		State: "OPEN", HeadSHA: head, ReviewDecision: "CHANGES_REQUESTED"})
	s.AddRun(fakegithub.Run{ID: 101, Workflow: "CI", Branch: "hive/issue-7", HeadSHA: older, Conclusion: "failure",
		Jobs: []fakegithub.Job{{Name: "test", Conclusion: "failure", Steps: []fakegithub.Step{{Name: "go test", Conclusion: "failure", Log: "--- FAIL: TestOld\nFAIL\n"}}}}})
	s.AddRun(fakegithub.Run{ID: 102, Workflow: "CI", Branch: "hive/issue-7", HeadSHA: head, Conclusion: "failure",
		Jobs: []fakegithub.Job{
			{Name: "lint", Conclusion: "success", Steps: []fakegithub.Step{{Name: "vet", Conclusion: "success", Log: "ok\n"}}},
			{Name: "test", Conclusion: "failure", Steps: []fakegithub.Step{
				{Name: "checkout", Conclusion: "success", Log: "checked out\n"},
				{Name: "go test", Conclusion: "failure", Log: "=== RUN   TestHealth\n    health_test.go:21: status 500, want 200\n--- FAIL: TestHealth (0.00s)\nFAIL\nFAIL\texample.com/svc\t0.012s\n"},
			}},
		}})
	s.AddThread(pr, fakegithub.Thread{Path: "health.go", Line: 12, Comments: []fakegithub.ThreadComment{{Author: "ana", Body: "handle the error from Encode"}}})
	s.AddThread(pr, fakegithub.Thread{Path: "health.go", Line: 3, Resolved: true, Comments: []fakegithub.ThreadComment{{Author: "ana", Body: "name it healthz"}}})
	s.AddThread(pr, fakegithub.Thread{Path: "main.go", Line: 9, Outdated: true, Comments: []fakegithub.ThreadComment{{Author: "bo", Body: "log the port"}}})

	got, err := ViewPullRequest(ctx, gh, dir, "1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 1 || got.State != "OPEN" || got.Head != head || got.Branch != "hive/issue-7" || got.ReviewDecision != "CHANGES_REQUESTED" || got.URL != s.URL()+"/pull/1" {
		t.Errorf("pull request %+v", got)
	}
	runs, err := Runs(ctx, gh, dir, "hive/issue-7")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != 102 || runs[0].HeadSHA != head || !runs[0].Failed() || runs[0].Workflow != "CI" {
		t.Errorf("runs %+v", runs)
	}
	threads, err := Threads(ctx, gh, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(threads) != 3 || threads[0].Path != "health.go" || threads[0].Line != 12 || threads[0].Comments[0].Body != "handle the error from Encode" || !threads[1].Resolved || !threads[2].Outdated {
		t.Errorf("threads %+v", threads)
	}

	if latest := Latest(runs); len(latest) != 1 || latest[0].ID != 102 || latest[0].HeadSHA != got.Head {
		t.Errorf("the newest run of each workflow: %+v (run 101 is of an older commit, and older)", latest)
	}

	log, err := FailedLog(ctx, gh, dir, 102)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log, "health_test.go:21: status 500, want 200") || strings.Contains(log, "checked out") || strings.Contains(log, "vet") {
		t.Errorf("the failed steps' log:\n%s", log)
	}
	t.Logf("gh run view --log-failed:\n%s", log)
	part := FailingPart(log, 20)
	if !strings.Contains(part, "--- FAIL: TestHealth") || strings.Contains(part, "\ttest\t") {
		t.Errorf("the failing part:\n%s", part)
	}

	if err := Reply(ctx, gh, dir, threads[0].ID, "Done in 1a2b3c4: the error from Encode is logged and answered with 500."); err != nil {
		t.Fatal(err)
	}
	after := s.Threads(pr)
	if c := after[0].Comments; len(c) != 2 || !strings.HasPrefix(c[1].Body, "Done in 1a2b3c4") {
		t.Errorf("the thread after the reply: %+v", after[0])
	}
}

func TestLatest(t *testing.T) {
	runs := []CIRun{ // newest first
		{ID: 5, Workflow: "CI", HeadSHA: head, Status: "completed", Conclusion: "success"},
		{ID: 4, Workflow: "CI", HeadSHA: head, Status: "completed", Conclusion: "failure"}, // re-run since, green
		{ID: 3, Workflow: "lint", HeadSHA: head, Status: "completed", Conclusion: "timed_out"},
		{ID: 2, Workflow: "e2e", HeadSHA: older, Status: "completed", Conclusion: "failure"},
		{ID: 1, Workflow: "lint", HeadSHA: older, Status: "completed", Conclusion: "success"},
	}
	var ids []int64
	for _, r := range Latest(runs) {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []int64{5, 3, 2}) {
		t.Errorf("latest %v, want [5 3 2]", ids)
	}
}

func TestFailingPart(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("test\tgo test\t2026-12-01T10:00:00.0000000Z building step " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("test\tgo test\t2026-12-01T10:00:01.0000000Z --- FAIL: TestHealth (0.00s)\n")
	b.WriteString("test\tgo test\t2026-12-01T10:00:01.0000000Z     health_test.go:21: status 500\n")
	got := FailingPart(b.String(), 30)
	if !strings.HasPrefix(got, "…\n") || !strings.Contains(got, "--- FAIL: TestHealth (0.00s)\n    health_test.go:21: status 500") || strings.Count(got, "\n") > 10 || strings.Contains(got, "2026-12-01T") {
		t.Errorf("failing part:\n%s", got)
	}
	if got := FailingPart("a\nb\nc\n", 2); got != "…\nb\nc" {
		t.Errorf("no failing line: %q", got)
	}
	if _, err := ViewPullRequest(context.Background(), "/nonexistent/gh", os.TempDir(), "--web"); err == nil {
		t.Error("a flag was taken for a pull request")
	}
}
