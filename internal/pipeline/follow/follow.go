package follow

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/pipeline/jobs"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/words"
)

// Run is what following needs of the machine: its jobs, its checkpoints,
// a job settled and the run's end.
type Run interface {
	Jobs() *jobs.Board
	Ask(j *jobs.Job, kind roleplan.CheckpointKind, question, details string, options []string, with ...func(*roleplan.Checkpoint)) []roleplan.Command
	Done(j *jobs.Job, s roleplan.JobState) []roleplan.Command
	Finish(outcome, reason string) []roleplan.Command
}

// Follow is where the following of a run's pull request stands.
type Follow struct {
	roleplan.Following
	handled map[string]int       // thread → its comments when routed, hive's reply included
	replies []roleplan.Reply     // the threads the fix answers
	ci      []roleplan.CIFailure // the last round's, for the human and a retry
	threads []roleplan.Thread
	// more is how many rounds the human allowed beyond the fix loops.
	more int
	// said: the signals left alone that were noted, each once.
	said map[string]bool
}

// Routable splits what a watch found into what is handed to the
// implementer: failed checks of the pull request's head, and review
// threads neither resolved nor outdated with a comment hive has not
// answered (handled). Stale says what is left alone and why: never send an
// agent after a signal that no longer holds.
func Routable(pr roleplan.PullRequest, ci []roleplan.CIFailure, threads []roleplan.Thread, handled map[string]int) (fix []roleplan.CIFailure, open []roleplan.Thread, stale []string) {
	for _, f := range ci {
		if f.Head != pr.Head {
			stale = append(stale, fmt.Sprintf("CI %s failed on %s, an older commit than the head %s", f.Workflow, short(f.Head), short(pr.Head)))
			continue
		}
		fix = append(fix, f)
	}
	for _, t := range threads {
		switch {
		case t.Resolved:
			stale = append(stale, "the comment on "+t.Where()+" is resolved")
		case t.Outdated:
			stale = append(stale, "the comment on "+t.Where()+" is outdated (its code changed)")
		case len(t.Comments) > handled[t.ID]:
			open = append(open, t)
		}
	}
	return fix, open, stale
}

func short(sha string) string { return sha[:min(len(sha), 7)] }

// Start puts the job that follows the run's pull request (FollowJob) on
// the board, once the roles are done, and begins its following.
func Start(b *jobs.Board) (*Follow, *jobs.Job) {
	j := &jobs.Job{Job: roleplan.Job{ID: roleplan.FollowJob, Type: roleplan.StepFollow, State: roleplan.Pending}}
	b.Add(j)
	return &Follow{Following: roleplan.Following{Stage: roleplan.StageDeliver}, handled: map[string]int{}, said: map[string]bool{}}, j
}

// Command is what FollowJob (j) does next, at its stage.
func (f *Follow) Command(b *jobs.Board, j *jobs.Job) roleplan.Command {
	j.State = roleplan.Checking
	switch f.Stage {
	case roleplan.StageDeliver:
		return roleplan.Command{Type: roleplan.CmdDeliver, Job: j.ID, Attempt: j.Attempts}
	case roleplan.StagePush:
		text := "hive's implementer addressed this in the commit pushed after it"
		if fix := fixSummary(b); fix != "" {
			text = "Addressed by hive's implementer: " + fix
		}
		replies := slices.Clone(f.replies)
		for i := range replies {
			replies[i].Text = text
		}
		pr := *f.PR
		return roleplan.Command{Type: roleplan.CmdPush, Job: j.ID, Attempt: j.Attempts, PR: &pr, Replies: replies}
	}
	pr := *f.PR
	return roleplan.Command{Type: roleplan.CmdWatch, Job: j.ID, Attempt: j.Attempts, PR: &pr, Handled: maps.Clone(f.handled)}
}

// Step steps what the commands of FollowJob (j) found; loops is how many
// rounds of fixes the workflow allows before a human decides.
func (f *Follow) Step(run Run, j *jobs.Job, ev roleplan.Event, loops int) ([]roleplan.Command, error) {
	switch {
	case j == nil || f == nil:
		return nil, fmt.Errorf("%s while no pull request is followed", ev.Type)
	case j.State != roleplan.Checking || (ev.Attempt != 0 && ev.Attempt != j.Attempts):
		return nil, fmt.Errorf("%s of attempt %d while %s is %s at attempt %d", ev.Type, ev.Attempt, roleplan.FollowJob, j.State, j.Attempts)
	}
	if want := map[roleplan.EventType]string{roleplan.EvDelivered: roleplan.StageDeliver, roleplan.EvPullRequest: roleplan.StageWatch, roleplan.EvPushed: roleplan.StagePush}[ev.Type]; f.Stage != want {
		return nil, fmt.Errorf("%s while the pull request is at its %s stage", ev.Type, f.Stage)
	}
	if ev.PR == nil && (ev.OK || ev.Type == roleplan.EvPullRequest) {
		return nil, fmt.Errorf("%s without its pull request", ev.Type)
	}
	switch ev.Type {
	case roleplan.EvDelivered:
		f.Notes = append(f.Notes, ev.Notes...)
		if !ev.OK {
			// The run's work is done; only its delivery failed, and the
			// notes say how to finish it by hand.
			out := []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: "no pull request to follow: " + words.First(ev.Reason, "it could not be opened")}}
			return append(out, run.Done(j, roleplan.Skipped)...), nil
		}
		pr := *ev.PR
		f.PR, f.Stage = &pr, roleplan.StageWatch
		note := fmt.Sprintf("following pull request #%d (%s): failed checks and review comments on its head go to the implementer, until it is merged or closed", pr.Number, pr.URL)
		return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: note}, f.Command(run.Jobs(), j)}, nil
	case roleplan.EvPushed:
		if !ev.OK {
			return run.Ask(j, roleplan.KindFollow, "could not push the fix to pull request #"+fmt.Sprint(f.PR.Number)+": "+words.First(ev.Reason, "git push failed"),
				"the fix is committed on branch "+f.PR.Branch+"; retry pushes it again", []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort}), nil
		}
		for _, r := range f.replies {
			f.handled[r.Thread] = r.Comments + 1 // hive's reply is one more
		}
		replied := len(f.replies)
		f.replies, f.Stage = nil, roleplan.StageWatch
		f.PR.Head = ev.PR.Head
		if n := len(f.Rounds); n > 0 {
			f.Rounds[n-1].Pushed, f.Rounds[n-1].Fix = ev.PR.Head, fixSummary(run.Jobs())
		}
		note := fmt.Sprintf("round %d: the fix is pushed (%s)", len(f.Rounds), short(ev.PR.Head))
		if replied > 0 {
			note += fmt.Sprintf(" and %d review comment(s) answered", replied)
		}
		return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: note + "; waiting for its checks"}, f.Command(run.Jobs(), j)}, nil
	}
	// EvPullRequest
	pr := *ev.PR
	f.PR.State, f.PR.Head = pr.State, pr.Head
	switch pr.State {
	case roleplan.PRMerged:
		out := []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID, Text: fmt.Sprintf("pull request #%d is merged", pr.Number)}}
		return append(out, run.Done(j, roleplan.Done)...), nil
	case roleplan.PRClosed:
		j.State = roleplan.Skipped
		return run.Finish(roleplan.OutcomeAborted, fmt.Sprintf("pull request #%d was closed without a merge", pr.Number)), nil
	}
	ci, threads, stale := Routable(pr, ev.CI, ev.Threads, f.handled)
	var out []roleplan.Command
	for _, s := range stale {
		if !f.said[s] {
			f.said[s] = true
			out = append(out, roleplan.Command{Type: roleplan.CmdNote, Job: j.ID, Text: "not routed: " + s})
		}
	}
	if len(ci) == 0 && len(threads) == 0 {
		return append(out, f.Command(run.Jobs(), j)), nil
	}
	f.ci, f.threads = ci, threads
	if j.Fixes >= loops+f.more {
		return append(out, run.Ask(j, roleplan.KindFollow, fmt.Sprintf("pull request #%d still has %s after %d round(s) of fixes", pr.Number, pending(ci, threads), j.Fixes),
			describe(ci, threads), []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})...), nil
	}
	return append(out, f.route(run, j, loops)...), nil
}

// route hands the last round's failures and comments to the
// implementer; the fix is pushed once it is done.
func (f *Follow) route(run Run, j *jobs.Job, loops int) []roleplan.Command {
	fixer := run.Jobs().Implementer()
	if fixer == nil {
		return run.Ask(j, roleplan.KindFollow, fmt.Sprintf("pull request #%d has %s and the workflow has no implementer to fix it", f.PR.Number, pending(f.ci, f.threads)),
			describe(f.ci, f.threads), []string{roleplan.AnswerRetry, roleplan.AnswerContinue, roleplan.AnswerAbort})
	}
	j.Fixes++
	round := roleplan.Round{N: len(f.Rounds) + 1, Head: f.PR.Head}
	for _, c := range f.ci {
		round.CI = append(round.CI, strings.TrimSpace(c.Workflow+" "+paren(c.URL)))
	}
	f.replies = nil
	for _, t := range f.threads {
		first := ""
		if len(t.Comments) > 0 {
			first = ": " + words.OneLine(t.Comments[len(t.Comments)-1].Body)
		}
		round.Threads = append(round.Threads, t.Where()+first)
		f.replies = append(f.replies, roleplan.Reply{Thread: t.ID, Comments: len(t.Comments)})
	}
	f.Rounds = append(f.Rounds, round)
	f.Stage = roleplan.StagePush
	of := fmt.Sprintf("%d of %d", j.Fixes, loops)
	if f.more > 0 {
		of = fmt.Sprintf("%d (one more, as the human asked)", j.Fixes)
	}
	run.Jobs().SendBack(j, fixer, &roleplan.Context{CI: slices.Clone(f.ci), Review: slices.Clone(f.threads)})
	return []roleplan.Command{{Type: roleplan.CmdNote, Job: j.ID,
		Text: fmt.Sprintf("pull request round %s: %s on %s, to the %s", of, pending(f.ci, f.threads), short(f.PR.Head), fixer.Role)}}
}

// Retry is the human's retry at a KindFollow checkpoint: push again,
// or one more round of fixes.
func (f *Follow) Retry(run Run, j *jobs.Job, loops int) []roleplan.Command {
	if f.Stage == roleplan.StagePush {
		return []roleplan.Command{f.Command(run.Jobs(), j)}
	}
	f.more = j.Fixes + 1 - loops
	return f.route(run, j, loops)
}

// Fixing is, when j is to fix a round of the followed pull request, what
// that round is to fix: the evidence a human asked to raise the budget for
// it needs. "" otherwise, or when no pull request is followed (f nil).
func (f *Follow) Fixing(b *jobs.Board, j *jobs.Job) string {
	if f == nil || f.Stage != roleplan.StagePush || j != b.Implementer() {
		return ""
	}
	return fmt.Sprintf("pull request #%d, round %d:\n%s", f.PR.Number, len(f.Rounds), describe(f.ci, f.threads))
}

// fixSummary is what the implementer's last report says it did.
func fixSummary(b *jobs.Board) string {
	if fixer := b.Implementer(); fixer != nil && fixer.Report != nil {
		return words.OneLine(fixer.Report.Summary)
	}
	return ""
}

func pending(ci []roleplan.CIFailure, threads []roleplan.Thread) string {
	var parts []string
	if len(ci) > 0 {
		parts = append(parts, fmt.Sprintf("%d failed check(s)", len(ci)))
	}
	if len(threads) > 0 {
		parts = append(parts, fmt.Sprintf("%d open review comment(s)", len(threads)))
	}
	return strings.Join(parts, " and ")
}

// describe is the evidence for the human: each failure with its log's
// failing part, each comment where it is.
func describe(ci []roleplan.CIFailure, threads []roleplan.Thread) string {
	var b strings.Builder
	for _, c := range ci {
		fmt.Fprintf(&b, "%s\n%s\n", strings.TrimSpace(fmt.Sprintf("CI %s failed on %s %s", c.Workflow, short(c.Head), paren(c.URL))), strings.TrimSpace(c.Log))
	}
	for _, t := range threads {
		for _, c := range t.Comments {
			fmt.Fprintf(&b, "%s: %s: %s\n", t.Where(), words.First(c.Author, "someone"), words.OneLine(c.Body))
		}
	}
	return strings.TrimSpace(b.String())
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// Snapshot is the following as it stands, nil when none (f nil).
func (f *Follow) Snapshot() *roleplan.Following {
	if f == nil {
		return nil
	}
	s := f.Following
	if s.PR != nil {
		pr := *s.PR
		s.PR = &pr
	}
	s.Rounds, s.Notes = slices.Clone(s.Rounds), slices.Clone(s.Notes)
	return &s
}
