package views_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/serve/pages"
	"github.com/hivectl/hive/internal/serve/views"
)

// A run that follows its pull request (hive run --follow) shows each round
// on its page, under the pull-request step: what failed or was asked on
// which head, and the fix pushed.
func TestPagesShowThePullRequestRounds(t *testing.T) {
	snap := roleplan.Snapshot{Spec: roleplan.Spec{Objective: "Add a health check endpoint"},
		Jobs: []roleplan.Job{{ID: "implementer", Role: "implementer", State: roleplan.Running, Attempts: 3},
			{ID: roleplan.FollowJob, Type: roleplan.StepFollow, State: roleplan.Pending, Attempts: 2}},
		Follow: &roleplan.Following{Stage: "push", PR: &roleplan.PullRequest{Number: 8, URL: "https://github.com/acme/svc/pull/8", State: roleplan.PROpen, Head: "f55e3bb0"},
			Rounds: []roleplan.Round{
				{N: 1, Head: "9d2e02b0", CI: []string{"test (https://github.com/acme/svc/actions/runs/101)"}, Pushed: "f55e3bb0", Fix: "fixed the failing TestHealth"},
				{N: 2, Head: "f55e3bb0", Threads: []string{"health.go:12: handle the error from Encode"}}}}}
	v := views.PipeView(journal.Run{ID: 1, Started: time.Now()}, snap)
	var b bytes.Buffer
	if err := pages.Render(&b, "run", pages.Page{View: &v}); err != nil {
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
