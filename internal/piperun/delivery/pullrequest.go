package delivery

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hivectl/hive/internal/github"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/pipeline/follow"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/roleplan"
)

// The executors of a followed pull request (hive run --follow): the
// machine's FollowJob decides, these only read and write GitHub through gh
// and push with git.

// prPoll is how often a followed pull request is looked at, unless
// Work.PRPoll says otherwise.
const prPoll = 30 * time.Second

// failingLines bounds the part of a failed log that an implementer is
// given.
const failingLines = 60

// OpenPullRequest pushes the run's branch and opens its pull request, or,
// on a resume after it was opened, updates the one open for the branch
// (publishWork), then reads it back: its number and head.
func (w *Work) OpenPullRequest(ctx context.Context, c roleplan.Command, snap roleplan.Snapshot) roleplan.Event {
	ev := roleplan.Event{Type: roleplan.EvDelivered, Job: c.Job, Attempt: c.Attempt}
	var d runjournal.Delivery
	// The user's branch as the run started, where the run's branch
	// comes from: not another the user switched to meanwhile.
	w.publishWork(ctx, snap, "pr", cmp.Or(snap.Spec.Target, w.Repo.CurrentBranch(ctx)), &d)
	ev.Notes = d.Notes
	if d.PullRequest == "" {
		ev.Reason = cmp.Or(d.Undelivered, lastOf(d.Notes), "no pull request was opened")
		return ev
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	gh, err := github.Gh()
	if err == nil {
		var pr github.PullRequest
		if pr, err = github.ViewPullRequest(ctx, gh, w.Repo.Root, d.PullRequest); err == nil {
			ev.OK, ev.PR = true, prOf(pr)
			return ev
		}
	}
	ev.Reason = "opened " + d.PullRequest + ", but could not read it back: " + oneLine(err.Error())
	return ev
}

// WatchPullRequest looks at the pull request every poll until it is
// merged or closed, or has what the machine routes; false when ctx ended
// first (the resume watches again). A failed look is noted, once while it
// fails alike, and tried again at the next poll: the network may come back.
func (w *Work) WatchPullRequest(ctx context.Context, c roleplan.Command) (roleplan.Event, bool) {
	poll := w.PRPoll
	if poll <= 0 {
		poll = prPoll
	}
	said := "" // a failure that lasts is noted once
	for {
		ev, found, err := w.lookAt(ctx, c)
		switch {
		case err != nil && ctx.Err() == nil && oneLine(err.Error()) != said:
			said = oneLine(err.Error())
			w.note(c.Job, fmt.Sprintf("could not read pull request #%d (trying again every %s): %s", c.PR.Number, poll, said))
		case found:
			return ev, true
		}
		select {
		case <-ctx.Done():
			return roleplan.Event{}, false
		case <-time.After(poll):
		}
	}
}

// lookAt reads the pull request, its branch's latest CI runs and its
// review threads once; found says whether it is merged or closed, or holds
// something to route (follow.Routable, with the threads c.Handled).
// Only then are the failed runs' logs fetched, cut to their failing part.
func (w *Work) lookAt(ctx context.Context, c roleplan.Command) (roleplan.Event, bool, error) {
	gh, err := github.Gh()
	if err != nil {
		return roleplan.Event{}, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	root := w.Repo.Root
	got, err := github.ViewPullRequest(ctx, gh, root, strconv.Itoa(c.PR.Number))
	if err != nil {
		return roleplan.Event{}, false, err
	}
	ev := roleplan.Event{Type: roleplan.EvPullRequest, Job: c.Job, Attempt: c.Attempt, PR: prOf(got)}
	if got.State != roleplan.PROpen {
		return ev, true, nil
	}
	runs, err := github.Runs(ctx, gh, root, got.Branch)
	if err != nil {
		return roleplan.Event{}, false, err
	}
	threads, err := github.Threads(ctx, gh, root, got.Number)
	if err != nil {
		return roleplan.Event{}, false, err
	}
	// What was read holds of one head only if the head did not move
	// meanwhile (a push between the reads): else look again.
	if again, err := github.ViewPullRequest(ctx, gh, root, strconv.Itoa(c.PR.Number)); err != nil || again.Head != got.Head || again.State != got.State {
		return roleplan.Event{}, false, err
	}
	for _, r := range github.Latest(runs) {
		if r.Failed() {
			ev.CI = append(ev.CI, roleplan.CIFailure{Workflow: r.Workflow, Run: r.ID, URL: r.URL, Head: r.HeadSHA})
		}
	}
	for _, t := range threads {
		th := roleplan.Thread{ID: t.ID, Path: t.Path, Line: t.Line, Resolved: t.Resolved, Outdated: t.Outdated}
		for _, cm := range t.Comments {
			th.Comments = append(th.Comments, roleplan.ThreadComment{Author: cm.Author, Body: cm.Body})
		}
		ev.Threads = append(ev.Threads, th)
	}
	fix, open, _ := follow.Routable(*ev.PR, ev.CI, ev.Threads, c.Handled)
	if len(fix) == 0 && len(open) == 0 {
		return ev, false, nil
	}
	if err := w.catchUp(ctx, got.Branch, got.Head); err != nil {
		w.note(c.Job, "the fix starts from the run's own head: "+err.Error())
	}
	for i, f := range ev.CI {
		if f.Head != got.Head {
			continue
		}
		log, err := github.FailedLog(ctx, gh, root, f.Run)
		if err != nil {
			log = "(could not fetch the failed log: " + oneLine(err.Error()) + "; gh run view " + strconv.FormatInt(f.Run, 10) + " --log-failed shows it)"
		}
		ev.CI[i].Log = github.FailingPart(log, failingLines)
	}
	return ev, true, nil
}

// catchUp brings the run's worktree to the pull request's head when
// someone else pushed to its branch (a reviewer's suggestion applied on
// GitHub): the fix is made on top of it, and its push goes through. A
// branch that went another way is left alone: the push then fails, and a
// human decides.
func (w *Work) catchUp(ctx context.Context, branch, head string) error {
	wt := w.Repo.At(w.Dir)
	if local, err := wt.Head(ctx); err != nil || head == "" || local == head || wt.IsAncestor(ctx, head, "HEAD") {
		return err
	}
	if err := fetchBranch(ctx, wt, branch); err != nil {
		return err
	}
	if !wt.IsAncestor(ctx, "HEAD", head) {
		return fmt.Errorf("the pull request's branch is at %.7s, which does not hold the run's last commit", head)
	}
	if _, err := wt.Git(ctx, "merge", "--ff-only", "-q", head); err != nil {
		return fmt.Errorf("git merge --ff-only %.7s: %s", head, oneLine(err.Error()))
	}
	return nil
}

// fetchBranch fetches origin's branch into the worktree wt (FETCH_HEAD).
func fetchBranch(ctx context.Context, wt *gitx.Repo, branch string) error {
	if _, err := wt.Git(ctx, "fetch", "-q", "origin", "refs/heads/"+branch); err != nil {
		return fmt.Errorf("git fetch origin %s: %s", branch, oneLine(err.Error()))
	}
	return nil
}

// rebaseOnto puts the run's commits that origin's branch lacks on top of
// it. Only hive's own, unpushed commits move; a conflict, or a worktree
// that is not clean, leaves everything as it was.
func (w *Work) rebaseOnto(ctx context.Context, branch string) error {
	wt := w.Repo.At(w.Dir)
	if err := fetchBranch(ctx, wt, branch); err != nil {
		return err
	}
	if _, err := wt.Git(ctx, "rebase", "-q", "FETCH_HEAD"); err != nil {
		wt.Git(ctx, "rebase", "--abort")
		return fmt.Errorf("the fix does not go on top of the branch as it is now: %s", oneLine(err.Error()))
	}
	return nil
}

// PushFix pushes the implementer's fix and answers the review threads it
// addresses, each once: a thread whose last comment is the answer already
// (hive was stopped after it) gets no second.
func (w *Work) PushFix(ctx context.Context, c roleplan.Command) roleplan.Event {
	ev := roleplan.Event{Type: roleplan.EvPushed, Job: c.Job, Attempt: c.Attempt}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	if _, err := w.Repo.Git(ctx, w.pushArgs()[1:]...); err != nil {
		// Someone pushed to the branch while the fix was made: the fix's
		// commits go on top of theirs, then the push again.
		if rerr := w.rebaseOnto(ctx, c.PR.Branch); rerr != nil {
			ev.Reason = fmt.Sprintf("git push: %s (%s)", oneLine(err.Error()), rerr)
			return ev
		}
		if _, err := w.Repo.Git(ctx, w.pushArgs()[1:]...); err != nil {
			ev.Reason = fmt.Sprintf("git push: %s", oneLine(err.Error()))
			return ev
		}
		w.note(c.Job, "the pull request's branch moved while the fix was made: the fix is pushed on top of it (rebased)")
	}
	head, err := w.Repo.At(w.Dir).Head(ctx)
	if err != nil {
		ev.Reason = "read the run's head: " + oneLine(err.Error())
		return ev
	}
	if len(c.Replies) > 0 {
		gh, err := github.Gh()
		if err != nil {
			ev.Reason = "gh: " + err.Error()
			return ev
		}
		threads, err := github.Threads(ctx, gh, w.Repo.Root, c.PR.Number)
		if err != nil {
			ev.Reason = oneLine(err.Error())
			return ev
		}
		last := map[string]string{}
		for _, t := range threads {
			if n := len(t.Comments); n > 0 {
				last[t.ID] = t.Comments[n-1].Body
			}
		}
		for _, r := range c.Replies {
			if last[r.Thread] == r.Text {
				continue
			}
			if err := github.Reply(ctx, gh, w.Repo.Root, r.Thread, r.Text); err != nil {
				ev.Reason = oneLine(err.Error())
				return ev
			}
		}
	}
	ev.OK, ev.PR = true, &roleplan.PullRequest{Number: c.PR.Number, URL: c.PR.URL, Branch: c.PR.Branch, State: roleplan.PROpen, Head: head}
	return ev
}

func prOf(pr github.PullRequest) *roleplan.PullRequest {
	return &roleplan.PullRequest{Number: pr.Number, URL: pr.URL, Branch: pr.Branch, State: pr.State, Head: pr.Head}
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// followed says how the following of the run's pull request ended.
func followed(f *roleplan.Following) string {
	rounds := fmt.Sprintf("after %d round(s) of fixes", len(f.Rounds))
	if len(f.Rounds) == 0 {
		rounds = "with no fix asked for"
	}
	switch f.PR.State {
	case roleplan.PRMerged:
		return fmt.Sprintf("pull request %s is merged, %s", f.PR.URL, rounds)
	case roleplan.PRClosed:
		return fmt.Sprintf("pull request %s was closed without a merge, %s; the work is on branch %s", f.PR.URL, rounds, f.PR.Branch)
	}
	return fmt.Sprintf("pull request %s is open, %s; hive no longer follows it", f.PR.URL, rounds)
}
