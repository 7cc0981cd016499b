package pipeline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Following a run's pull request (Spec.Follow, rules 4). Once the roles are
// done, the job FollowJob delivers the work as a pull request (CmdDeliver)
// and watches it (CmdWatch). What the watch finds on the pull request's
// head, failed checks and open review threads, goes to the implementer as
// a fix loop does; its fix is pushed and the threads are answered
// (CmdPush); then the new head is watched. The run ends when the pull
// request is merged (complete) or closed (aborted); after the workflow's
// fix loops, or when a push fails, a human decides.

// FollowJob is the id of the job that delivers and follows the run's pull
// request; StepFollow its type.
const (
	FollowJob  = "pull-request"
	StepFollow = "follow"
)

// Pull request states, as GitHub names them.
const (
	PROpen   = "OPEN"
	PRMerged = "MERGED"
	PRClosed = "CLOSED"
)

// PullRequest is the run's pull request.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
	Branch string `json:"branch,omitempty"`
	State  string `json:"state,omitempty"`
	// Head is the commit its branch is at on GitHub.
	Head string `json:"head,omitempty"`
}

// CIFailure is a failed check of the pull request: a workflow run of Head,
// with the failing part of its log.
type CIFailure struct {
	Workflow string `json:"workflow"`
	Run      int64  `json:"run,omitempty"`
	URL      string `json:"url,omitempty"`
	Head     string `json:"head"`
	Log      string `json:"log,omitempty"`
}

// Thread is a review thread of the pull request.
type Thread struct {
	ID       string          `json:"id"`
	Path     string          `json:"path,omitempty"`
	Line     int             `json:"line,omitempty"`
	Resolved bool            `json:"resolved,omitempty"`
	Outdated bool            `json:"outdated,omitempty"`
	Comments []ThreadComment `json:"comments,omitempty"`
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	Author string `json:"author,omitempty"`
	Body   string `json:"body"`
}

// Where says where the thread's comment is: FILE:LINE, FILE, or "the pull
// request".
func (t Thread) Where() string {
	switch {
	case t.Path != "" && t.Line > 0:
		return fmt.Sprintf("%s:%d", t.Path, t.Line)
	case t.Path != "":
		return t.Path
	}
	return "the pull request"
}

// Reply is hive's answer on a review thread once the fix is pushed;
// Comments is how many comments the thread had when it was routed.
type Reply struct {
	Thread   string `json:"thread"`
	Comments int    `json:"comments"`
	Text     string `json:"text,omitempty"`
}

// Round is one round of following: what was routed on Head, and the head
// the fix was pushed as.
type Round struct {
	N       int      `json:"n"`
	Head    string   `json:"head"`
	CI      []string `json:"ci,omitempty"`       // "WORKFLOW (URL)"
	Threads []string `json:"comments,omitempty"` // "FILE:LINE: last comment"
	Pushed  string   `json:"pushed,omitempty"`
	// Fix is what the implementer said it did (its report's summary).
	Fix string `json:"fix,omitempty"`
}

// Following is where the following of the run's pull request stands.
type Following struct {
	PR     *PullRequest `json:"pr,omitempty"`
	Stage  string       `json:"stage"`
	Rounds []Round      `json:"rounds,omitempty"`
	// Notes are what delivery did (pushed, opened), for the run's
	// delivery record.
	Notes []string `json:"notes,omitempty"`
}

// Stages of following.
const (
	StageDeliver = "deliver" // push the branch, open the pull request
	StageWatch   = "watch"   // wait for its checks, reviews, merge
	StagePush    = "push"    // push the implementer's fix, answer the threads
)

type following struct {
	Following
	handled map[string]int // thread → its comments when routed, hive's reply included
	replies []Reply        // the threads the fix answers
	ci      []CIFailure    // the last round's, for the human and a retry
	threads []Thread
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
func Routable(pr PullRequest, ci []CIFailure, threads []Thread, handled map[string]int) (fix []CIFailure, open []Thread, stale []string) {
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

// followJob is the job that follows the run's pull request, made once the
// roles are done; nil when the run does not follow one or already has.
func (m *Machine) followJob() *job {
	if !m.spec.Follow || m.spec.Rules < followRules || m.byID[FollowJob] != nil {
		return nil
	}
	j := &job{Job: Job{ID: FollowJob, Type: StepFollow, State: Pending}}
	m.add(j)
	m.follow = &following{Following: Following{Stage: StageDeliver}, handled: map[string]int{}, said: map[string]bool{}}
	return j
}

// followCommand is what FollowJob does next, at its stage.
func (m *Machine) followCommand(j *job) Command {
	f := m.follow
	j.State = Checking
	switch f.Stage {
	case StageDeliver:
		return Command{Type: CmdDeliver, Job: j.ID, Attempt: j.Attempts}
	case StagePush:
		text := "hive's implementer addressed this in the commit pushed after it"
		if fix := m.fixSummary(); fix != "" {
			text = "Addressed by hive's implementer: " + fix
		}
		replies := slices.Clone(f.replies)
		for i := range replies {
			replies[i].Text = text
		}
		pr := *f.PR
		return Command{Type: CmdPush, Job: j.ID, Attempt: j.Attempts, PR: &pr, Replies: replies}
	}
	pr := *f.PR
	return Command{Type: CmdWatch, Job: j.ID, Attempt: j.Attempts, PR: &pr, Handled: maps.Clone(f.handled)}
}

// followed steps what FollowJob's commands found.
func (m *Machine) followed(ev Event) ([]Command, error) {
	j, f := m.byID[FollowJob], m.follow
	switch {
	case j == nil || f == nil:
		return nil, fmt.Errorf("%s while no pull request is followed", ev.Type)
	case j.State != Checking || (ev.Attempt != 0 && ev.Attempt != j.Attempts):
		return nil, fmt.Errorf("%s of attempt %d while %s is %s at attempt %d", ev.Type, ev.Attempt, FollowJob, j.State, j.Attempts)
	}
	if want := map[EventType]string{EvDelivered: StageDeliver, EvPullRequest: StageWatch, EvPushed: StagePush}[ev.Type]; f.Stage != want {
		return nil, fmt.Errorf("%s while the pull request is at its %s stage", ev.Type, f.Stage)
	}
	if ev.PR == nil && (ev.OK || ev.Type == EvPullRequest) {
		return nil, fmt.Errorf("%s without its pull request", ev.Type)
	}
	switch ev.Type {
	case EvDelivered:
		f.Notes = append(f.Notes, ev.Notes...)
		if !ev.OK {
			// The run's work is done; only its delivery failed, and the
			// notes say how to finish it by hand.
			out := []Command{{Type: CmdNote, Job: j.ID, Text: "no pull request to follow: " + firstOf(ev.Reason, "it could not be opened")}}
			return append(out, m.done(j, Skipped)...), nil
		}
		pr := *ev.PR
		f.PR, f.Stage = &pr, StageWatch
		note := fmt.Sprintf("following pull request #%d (%s): failed checks and review comments on its head go to the implementer, until it is merged or closed", pr.Number, pr.URL)
		return []Command{{Type: CmdNote, Job: j.ID, Text: note}, m.followCommand(j)}, nil
	case EvPushed:
		if !ev.OK {
			return m.ask(j, KindFollow, "could not push the fix to pull request #"+fmt.Sprint(f.PR.Number)+": "+firstOf(ev.Reason, "git push failed"),
				"the fix is committed on branch "+f.PR.Branch+"; retry pushes it again", []string{AnswerRetry, AnswerContinue, AnswerAbort}), nil
		}
		for _, r := range f.replies {
			f.handled[r.Thread] = r.Comments + 1 // hive's reply is one more
		}
		replied := len(f.replies)
		f.replies, f.Stage = nil, StageWatch
		f.PR.Head = ev.PR.Head
		if n := len(f.Rounds); n > 0 {
			f.Rounds[n-1].Pushed, f.Rounds[n-1].Fix = ev.PR.Head, m.fixSummary()
		}
		note := fmt.Sprintf("round %d: the fix is pushed (%s)", len(f.Rounds), short(ev.PR.Head))
		if replied > 0 {
			note += fmt.Sprintf(" and %d review comment(s) answered", replied)
		}
		return []Command{{Type: CmdNote, Job: j.ID, Text: note + "; waiting for its checks"}, m.followCommand(j)}, nil
	}
	// EvPullRequest
	pr := *ev.PR
	f.PR.State, f.PR.Head = pr.State, pr.Head
	switch pr.State {
	case PRMerged:
		out := []Command{{Type: CmdNote, Job: j.ID, Text: fmt.Sprintf("pull request #%d is merged", pr.Number)}}
		return append(out, m.done(j, Done)...), nil
	case PRClosed:
		j.State = Skipped
		return m.finish(OutcomeAborted, fmt.Sprintf("pull request #%d was closed without a merge", pr.Number)), nil
	}
	ci, threads, stale := Routable(pr, ev.CI, ev.Threads, f.handled)
	var out []Command
	for _, s := range stale {
		if !f.said[s] {
			f.said[s] = true
			out = append(out, Command{Type: CmdNote, Job: j.ID, Text: "not routed: " + s})
		}
	}
	if len(ci) == 0 && len(threads) == 0 {
		return append(out, m.followCommand(j)), nil
	}
	f.ci, f.threads = ci, threads
	if j.fixes >= m.spec.Workflow.fixLoops()+f.more {
		return append(out, m.ask(j, KindFollow, fmt.Sprintf("pull request #%d still has %s after %d round(s) of fixes", pr.Number, pending(ci, threads), j.fixes),
			describe(ci, threads), []string{AnswerRetry, AnswerContinue, AnswerAbort})...), nil
	}
	return append(out, m.routeFollow(j)...), nil
}

// routeFollow hands the last round's failures and comments to the
// implementer; the fix is pushed once it is done.
func (m *Machine) routeFollow(j *job) []Command {
	f := m.follow
	fixer := m.implementer()
	if fixer == nil {
		return m.ask(j, KindFollow, fmt.Sprintf("pull request #%d has %s and the workflow has no implementer to fix it", f.PR.Number, pending(f.ci, f.threads)),
			describe(f.ci, f.threads), []string{AnswerRetry, AnswerContinue, AnswerAbort})
	}
	j.fixes++
	round := Round{N: len(f.Rounds) + 1, Head: f.PR.Head}
	for _, c := range f.ci {
		round.CI = append(round.CI, strings.TrimSpace(c.Workflow+" "+paren(c.URL)))
	}
	f.replies = nil
	for _, t := range f.threads {
		first := ""
		if len(t.Comments) > 0 {
			first = ": " + oneLine(t.Comments[len(t.Comments)-1].Body)
		}
		round.Threads = append(round.Threads, t.Where()+first)
		f.replies = append(f.replies, Reply{Thread: t.ID, Comments: len(t.Comments)})
	}
	f.Rounds = append(f.Rounds, round)
	f.Stage = StagePush
	of := fmt.Sprintf("%d of %d", j.fixes, m.spec.Workflow.fixLoops())
	if f.more > 0 {
		of = fmt.Sprintf("%d (one more, as the human asked)", j.fixes)
	}
	return m.sendBack(j, fixer, &Context{CI: slices.Clone(f.ci), Review: slices.Clone(f.threads)},
		fmt.Sprintf("pull request round %s: %s on %s, to the %s", of, pending(f.ci, f.threads), short(f.PR.Head), fixer.Role))
}

// followRetry is the human's retry at a KindFollow checkpoint: push again,
// or one more round of fixes.
func (m *Machine) followRetry(j *job) []Command {
	if m.follow.Stage == StagePush {
		return []Command{m.followCommand(j)}
	}
	m.follow.more = j.fixes + 1 - m.spec.Workflow.fixLoops()
	return m.routeFollow(j)
}

// followFixing is, when j is to fix a round of the followed pull request,
// what that round is to fix: the evidence a human asked to raise the
// budget for it needs. "" otherwise.
func (m *Machine) followFixing(j *job) string {
	f := m.follow
	if f == nil || f.Stage != StagePush || j != m.implementer() {
		return ""
	}
	return fmt.Sprintf("pull request #%d, round %d:\n%s", f.PR.Number, len(f.Rounds), describe(f.ci, f.threads))
}

// fixSummary is what the implementer's last report says it did.
func (m *Machine) fixSummary() string {
	if fixer := m.implementer(); fixer != nil && fixer.Report != nil {
		return oneLine(fixer.Report.Summary)
	}
	return ""
}

func pending(ci []CIFailure, threads []Thread) string {
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
func describe(ci []CIFailure, threads []Thread) string {
	var b strings.Builder
	for _, c := range ci {
		fmt.Fprintf(&b, "%s\n%s\n", strings.TrimSpace(fmt.Sprintf("CI %s failed on %s %s", c.Workflow, short(c.Head), paren(c.URL))), strings.TrimSpace(c.Log))
	}
	for _, t := range threads {
		for _, c := range t.Comments {
			fmt.Fprintf(&b, "%s: %s: %s\n", t.Where(), firstOf(c.Author, "someone"), oneLine(c.Body))
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

// Text is the following told for hive report and the run's page: the
// pull request, then a line per round.
func (f *Following) Text() string {
	if f == nil || f.PR == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pull request #%d (%s): %s, %d round(s) of fixes\n", f.PR.Number, f.PR.URL, strings.ToLower(cmp.Or(f.PR.State, PROpen)), len(f.Rounds))
	for _, r := range f.Rounds {
		var what []string
		for _, c := range r.CI {
			what = append(what, "CI "+c+" failed")
		}
		for _, t := range r.Threads {
			what = append(what, "comment "+t)
		}
		fmt.Fprintf(&b, "  round %d on %s: %s", r.N, short(r.Head), strings.Join(what, "; "))
		if r.Pushed != "" {
			fmt.Fprintf(&b, " → fix pushed as %s", short(r.Pushed))
			if r.Fix != "" {
				fmt.Fprintf(&b, " (%s)", r.Fix)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// followSnapshot is the following as it stands, nil when none.
func (m *Machine) followSnapshot() *Following {
	if m.follow == nil {
		return nil
	}
	f := m.follow.Following
	if f.PR != nil {
		pr := *f.PR
		f.PR = &pr
	}
	f.Rounds, f.Notes = slices.Clone(f.Rounds), slices.Clone(f.Notes)
	return &f
}
