package serve

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/pipeline"
	"github.com/hivectl/hive/internal/work"
)

// A run that waits for its provider's usage limit says so on its page and
// in the dashboard's list, with when it goes on; a finished run does not,
// and a run that fell back says that.
func TestPagesShowTheLimitWait(t *testing.T) {
	until := time.Now().Add(2*time.Hour + 13*time.Minute + 10*time.Second)
	wait := &work.LimitWait{Kind: work.LimitUsage, Until: until, Since: time.Now(), Job: "01-02"}
	v := RunView{Key: "phase-1", Kind: "phase", ID: 1, Title: "Phase 01", State: "running", Limit: wait}
	render := func(name string, p page) string {
		var b bytes.Buffer
		if err := pages().ExecuteTemplate(&b, name, p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := "waiting for the usage limit&#39;s reset at " + until.Local().Format("15:04") + " (in 2h13m)"
	if got := render("run", page{View: &v}); !strings.Contains(got, want) || !strings.Contains(got, "hive answer limit resume-now") {
		t.Errorf("the run's page lacks %q:\n%s", want, got)
	}
	if got := render("dashboard", page{Runs: []RunView{v}}); !strings.Contains(got, want) {
		t.Errorf("the dashboard lacks %q:\n%s", want, got)
	}
	v.State = "stopped" // --on-limit stop, or hive was stopped: nothing goes on by itself
	if got := render("run", page{View: &v}); !strings.Contains(got, "run its command again to go on") {
		t.Errorf("a stopped run's page does not say how to go on:\n%s", got)
	}
	done := time.Now()
	v.Finished, v.State, v.Fallback = &done, "finished", true
	if got := render("run", page{View: &v}); strings.Contains(got, "waiting for") || !strings.Contains(got, "switched the run to the fallback agent") {
		t.Errorf("a finished run's page shows a wait, or not its fallback:\n%s", got)
	}
}

// A run that follows its pull request (hive run --follow) shows each round
// on its page, under the pull-request step: what failed or was asked on
// which head, and the fix pushed.
func TestPagesShowThePullRequestRounds(t *testing.T) {
	snap := pipeline.Snapshot{Spec: pipeline.Spec{Objective: "Add a health check endpoint"},
		Jobs: []pipeline.Job{{ID: "implementer", Role: "implementer", State: pipeline.Running, Attempts: 3},
			{ID: pipeline.FollowJob, Type: pipeline.StepFollow, State: pipeline.Pending, Attempts: 2}},
		Follow: &pipeline.Following{Stage: "push", PR: &pipeline.PullRequest{Number: 8, URL: "https://github.com/acme/svc/pull/8", State: pipeline.PROpen, Head: "f55e3bb0"},
			Rounds: []pipeline.Round{
				{N: 1, Head: "9d2e02b0", CI: []string{"test (https://github.com/acme/svc/actions/runs/101)"}, Pushed: "f55e3bb0", Fix: "fixed the failing TestHealth"},
				{N: 2, Head: "f55e3bb0", Threads: []string{"health.go:12: handle the error from Encode"}}}}}
	v := pipeView(journal.Run{ID: 1, Started: time.Now()}, snap)
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, "run", page{View: &v}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pull request #8 (https://github.com/acme/svc/pull/8): open, 2 round(s) of fixes",
		"round 1 on 9d2e02b: CI test (https://github.com/acme/svc/actions/runs/101) failed → fix pushed as f55e3bb (fixed the failing TestHealth)",
		"round 2 on f55e3bb: comment health.go:12: handle the error from Encode"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the run's page lacks %q:\n%s", want, b.String())
		}
	}
}
