package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// Issue is an issue as a run takes it.
type Issue struct {
	Number   int       `json:"number"`
	Title    string    `json:"title"`
	Body     string    `json:"body,omitempty"`
	URL      string    `json:"url"`
	Labels   []string  `json:"labels,omitempty"`
	Comments []Comment `json:"comments,omitempty"`
}

// Comment is a comment on an issue.
type Comment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
}

// Gh finds the gh CLI, or says how to get it.
func Gh() (string, error) {
	p, err := exec.LookPath("gh")
	if err != nil {
		return "", errors.New("gh is not installed: install it (https://cli.github.com), log in with gh auth login, then run again")
	}
	return p, nil
}

// Run runs gh with args in dir, never asking anything: its output, or an
// error with what it said.
func Run(ctx context.Context, gh, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gh, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "NO_COLOR=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), errors.New(msg)
	}
	return stdout.String(), nil
}

// ghIssue is an issue as gh's --json prints it.
type ghIssue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	URL    string `json:"url"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Comments []struct {
		Author struct {
			Login string `json:"login"`
		} `json:"author"`
		Body string `json:"body"`
	} `json:"comments"`
}

func (g ghIssue) issue() Issue {
	i := Issue{Number: g.Number, Title: g.Title, Body: g.Body, URL: g.URL}
	for _, l := range g.Labels {
		i.Labels = append(i.Labels, l.Name)
	}
	for _, c := range g.Comments {
		i.Comments = append(i.Comments, Comment{Author: c.Author.Login, Body: c.Body})
	}
	return i
}

// refRE is what --issue takes: a number, #number, or an issue's address.
var refRE = regexp.MustCompile(`^(#?[0-9]+|https?://[^\s/]+/[^\s/]+/[^\s/]+/issues/[0-9]+)$`)

// View reads issue ref ("7", "#7" or its address) of the repository in dir
// (gh finds it from the git remote; an address names its own).
func View(ctx context.Context, gh, dir, ref string) (Issue, error) {
	if !refRE.MatchString(ref) {
		return Issue{}, fmt.Errorf("%q is not an issue: give its number (7) or its address (https://github.com/OWNER/REPO/issues/7)", ref)
	}
	out, err := Run(ctx, gh, dir, "issue", "view", strings.TrimPrefix(ref, "#"), "--json", "number,title,body,url,labels,comments")
	if err != nil {
		return Issue{}, fmt.Errorf("gh issue view %s: %v", ref, err)
	}
	var g ghIssue
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		return Issue{}, fmt.Errorf("gh issue view %s: %v", ref, err)
	}
	return g.issue(), nil
}

// List is the open issues of the repository in dir that carry label
// ("": every open issue), newest first, limit at most.
func List(ctx context.Context, gh, dir, label string, limit int) ([]Issue, error) {
	args := []string{"issue", "list", "--state", "open", "--limit", fmt.Sprint(limit), "--json", "number,title,url,labels"}
	if label != "" {
		args = append(args, "--label", label)
	}
	out, err := Run(ctx, gh, dir, args...)
	if err != nil {
		return nil, fmt.Errorf("gh issue list: %v", err)
	}
	var gs []ghIssue
	if err := json.Unmarshal([]byte(out), &gs); err != nil {
		return nil, fmt.Errorf("gh issue list: %v", err)
	}
	issues := []Issue{}
	for _, g := range gs {
		issues = append(issues, g.issue())
	}
	return issues, nil
}

// Text is the issue as every role of a run reads it: its title, address,
// labels, body and comments.
func (i Issue) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Issue #%d: %s\n\n%s\n", i.Number, i.Title, i.URL)
	if len(i.Labels) > 0 {
		fmt.Fprintf(&b, "Labels: %s\n", strings.Join(i.Labels, ", "))
	}
	if body := strings.TrimSpace(i.Body); body != "" {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	for _, c := range i.Comments {
		fmt.Fprintf(&b, "\n## Comment by %s\n\n%s\n", c.Author, strings.TrimSpace(c.Body))
	}
	return b.String()
}

var issueURLRE = regexp.MustCompile(`^https?://[^/]+/([^/]+/[^/]+)/issues/([0-9]+)$`)

// Closes is what a pull request's description says to close the issue
// when it merges: "Closes OWNER/REPO#N" (the repository named, so that it
// holds from a fork too), or "Closes #N" where the address says no
// repository.
func (i Issue) Closes() string {
	if m := issueURLRE.FindStringSubmatch(i.URL); m != nil {
		return "Closes " + m[1] + "#" + m[2]
	}
	return fmt.Sprintf("Closes #%d", i.Number)
}
