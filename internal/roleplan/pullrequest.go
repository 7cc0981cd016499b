package roleplan

import (
	"cmp"
	"fmt"
	"strings"
)

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
