package github

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PullRequest is a pull request as hive follows it after opening it.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	// State is OPEN, MERGED or CLOSED.
	State  string `json:"state"`
	Branch string `json:"headRefName"`
	// Head is the commit the branch is at now: a CI run or a review
	// comment of another commit may no longer apply.
	Head string `json:"headRefOid"`
	// ReviewDecision is APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED or "".
	ReviewDecision string `json:"reviewDecision"`
}

// prRefRE is a pull request as hive names it to gh: its number or address.
var prRefRE = regexp.MustCompile(`^([0-9]+|https?://[^\s/]+/[^\s/]+/[^\s/]+/pull/[0-9]+)$`)

// ViewPullRequest reads pull request ref (its number or address) of the
// repository in dir.
func ViewPullRequest(ctx context.Context, gh, dir, ref string) (PullRequest, error) {
	if !prRefRE.MatchString(ref) {
		return PullRequest{}, fmt.Errorf("%q is not a pull request: give its number or its address", ref)
	}
	return viewPullRequest(ctx, gh, dir, ref)
}

// viewPullRequest is gh pr view REF (a number, an address or a branch)
// read into a PullRequest.
func viewPullRequest(ctx context.Context, gh, dir, ref string) (PullRequest, error) {
	out, err := Run(ctx, gh, dir, "pr", "view", ref, "--json", "number,url,state,headRefName,headRefOid,reviewDecision")
	if err != nil {
		return PullRequest{}, fmt.Errorf("gh pr view %s: %v", ref, err)
	}
	var pr PullRequest
	if err := json.Unmarshal([]byte(out), &pr); err != nil {
		return PullRequest{}, fmt.Errorf("gh pr view %s: %v", ref, err)
	}
	return pr, nil
}

// OpenPullRequestFor is the open pull request of branch, if there is one
// (a run resumed after it opened its own finds it).
func OpenPullRequestFor(ctx context.Context, gh, dir, branch string) (PullRequest, bool, error) {
	if branch == "" || strings.HasPrefix(branch, "-") {
		return PullRequest{}, false, fmt.Errorf("%q is not a branch", branch)
	}
	pr, err := viewPullRequest(ctx, gh, dir, branch)
	if err != nil && strings.Contains(err.Error(), "no pull requests found") {
		return PullRequest{}, false, nil
	}
	return pr, err == nil && pr.State == "OPEN", err
}

// EditBody sets pull request number's description to the file body's
// text.
func EditBody(ctx context.Context, gh, dir string, number int, body string) error {
	if _, err := Run(ctx, gh, dir, "pr", "edit", strconv.Itoa(number), "--body-file", body); err != nil {
		return fmt.Errorf("gh pr edit %d: %v", number, err)
	}
	return nil
}

// CIRun is a workflow run (GitHub Actions) of a branch.
type CIRun struct {
	ID       int64  `json:"databaseId"`
	Workflow string `json:"workflowName"`
	HeadSHA  string `json:"headSha"`
	// Status is queued, in_progress or completed; Conclusion, once
	// completed, success, failure, cancelled, timed_out, ...
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	URL        string `json:"url"`
}

// Failed says whether the run ended in a failure that a fix may mend.
func (r CIRun) Failed() bool {
	return r.Status == "completed" && (r.Conclusion == "failure" || r.Conclusion == "timed_out")
}

// Runs is the latest workflow runs of branch, newest first.
func Runs(ctx context.Context, gh, dir, branch string) ([]CIRun, error) {
	out, err := Run(ctx, gh, dir, "run", "list", "--branch", branch, "--limit", "50",
		"--json", "databaseId,workflowName,headSha,status,conclusion,url")
	if err != nil {
		return nil, fmt.Errorf("gh run list --branch %s: %v", branch, err)
	}
	runs := []CIRun{}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		return nil, fmt.Errorf("gh run list --branch %s: %v", branch, err)
	}
	return runs, nil
}

// FailedLog is the log of run id's failed steps, as gh run view
// --log-failed prints it: a line per log line, after the job's and the
// step's names and a tab each.
func FailedLog(ctx context.Context, gh, dir string, id int64) (string, error) {
	out, err := Run(ctx, gh, dir, "run", "view", strconv.FormatInt(id, 10), "--log-failed")
	if err != nil {
		return "", fmt.Errorf("gh run view %d --log-failed: %v", id, err)
	}
	return out, nil
}

// Thread is a review thread of a pull request: comments on one line of
// one file.
type Thread struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Line int    `json:"line"`
	// Resolved: a reviewer or the author marked it done. Outdated: the
	// line it is on has changed since.
	Resolved bool            `json:"resolved"`
	Outdated bool            `json:"outdated"`
	Comments []ThreadComment `json:"comments"`
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
}

// threadsQuery reads a pull request's review threads; gh fills {owner}
// and {repo} from the repository in dir (its remote, or GH_REPO).
const threadsQuery = `query HiveReviewThreads($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          comments(first: 50) { nodes { body author { login } } }
        }
      }
    }
  }
}`

// Threads is the review threads of pull request number.
func Threads(ctx context.Context, gh, dir string, number int) ([]Thread, error) {
	out, err := Run(ctx, gh, dir, "api", "graphql", "-f", "query="+threadsQuery,
		"-F", "owner={owner}", "-F", "repo={repo}", "-F", "number="+strconv.Itoa(number))
	if err != nil {
		return nil, fmt.Errorf("gh api graphql (the review threads of #%d): %v", number, err)
	}
	var resp struct {
		Data struct {
			Repository struct {
				PullRequest *struct {
					ReviewThreads struct {
						Nodes []struct {
							ID         string `json:"id"`
							IsResolved bool   `json:"isResolved"`
							IsOutdated bool   `json:"isOutdated"`
							Path       string `json:"path"`
							Line       int    `json:"line"`
							Comments   struct {
								Nodes []struct {
									Body   string `json:"body"`
									Author struct {
										Login string `json:"login"`
									} `json:"author"`
								} `json:"nodes"`
							} `json:"comments"`
						} `json:"nodes"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		return nil, fmt.Errorf("gh api graphql (the review threads of #%d): %v", number, err)
	}
	pr := resp.Data.Repository.PullRequest
	if pr == nil {
		return nil, fmt.Errorf("gh api graphql: no pull request #%d", number)
	}
	threads := []Thread{}
	for _, n := range pr.ReviewThreads.Nodes {
		t := Thread{ID: n.ID, Path: n.Path, Line: n.Line, Resolved: n.IsResolved, Outdated: n.IsOutdated}
		for _, c := range n.Comments.Nodes {
			t.Comments = append(t.Comments, ThreadComment{Author: c.Author.Login, Body: c.Body})
		}
		threads = append(threads, t)
	}
	return threads, nil
}

const replyMutation = `mutation HiveReply($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $thread, body: $body}) { comment { id } }
}`

// Reply answers review thread id with body.
func Reply(ctx context.Context, gh, dir, id, body string) error {
	// -f: the body is a string as it is (-F would read "@file" or a number).
	if _, err := Run(ctx, gh, dir, "api", "graphql", "-f", "query="+replyMutation, "-f", "thread="+id, "-f", "body="+body); err != nil {
		return fmt.Errorf("gh api graphql (a reply on review thread %s): %v", id, err)
	}
	return nil
}

// Latest is each workflow's newest run, newest first: a run that a later
// one of the same workflow replaced (a re-run, a new commit) says nothing
// now. Whether a failure still applies, it being of the pull request's
// head, the machine decides (follow.Routable).
func Latest(runs []CIRun) []CIRun {
	var out []CIRun
	seen := map[string]bool{}
	for _, r := range runs { // newest first
		if !seen[r.Workflow] {
			seen[r.Workflow] = true
			out = append(out, r)
		}
	}
	return out
}

// FailingPart cuts a failed log to what says why it failed, for an
// agent's prompt: the lines that name a failure (FAIL, Error, panic,
// assertion, exit code) with a few lines around each, at most most
// lines, else the log's last most lines. gh's job and step columns are dropped.
func FailingPart(log string, most int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		// "JOB\tSTEP\tTIMESTAMP LINE": keep the line.
		if parts := strings.SplitN(l, "\t", 3); len(parts) == 3 {
			l = parts[2]
			if i := strings.IndexByte(l, ' '); i > 0 && looksLikeTime(l[:i]) {
				l = l[i+1:]
			}
		}
		lines = append(lines, l)
	}
	keep := make([]bool, len(lines))
	found := false
	for i, l := range lines {
		if failingLineRE.MatchString(l) {
			found = true
			for k := max(i-3, 0); k <= min(i+3, len(lines)-1); k++ {
				keep[k] = true
			}
		}
	}
	var out []string
	if found {
		last := -1
		for i, l := range lines {
			if !keep[i] {
				continue
			}
			if i > last+1 {
				out = append(out, "…")
			}
			out = append(out, l)
			last = i
		}
	} else {
		out = lines
	}
	if len(out) > most {
		out = append([]string{"…"}, out[len(out)-most:]...)
	}
	return strings.Join(out, "\n")
}

var failingLineRE = regexp.MustCompile(`(?i)(^|\s|-)(FAIL|FAILED|ERROR|Error:|panic:|assert|exit code [1-9]|exit status [1-9]|Traceback)`)

func looksLikeTime(s string) bool {
	return len(s) >= 20 && s[4] == '-' && strings.Contains(s, "T") && slices.Contains([]byte{'Z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'}, s[len(s)-1])
}
