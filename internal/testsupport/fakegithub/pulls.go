package fakegithub

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What a pull request's follower reads: the pull request by number (gh pr
// view), its review threads and a reply on one (hive's own GraphQL, by
// operation name), and the branch's workflow runs with their jobs and log
// archives (gh run list, gh run view --log-failed: REST).

// AddPullRequest adds pr, numbered after every issue and pull request, and
// returns its number.
func (s *Server) AddPullRequest(pr PullRequest) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.Number = s.nextNumber()
	for i := range pr.Threads {
		pr.Threads[i].ID = fmt.Sprintf("PRRT_%d_%d", pr.Number, i+1)
	}
	s.prs = append(s.prs, &pr)
	return pr.Number
}

// nextNumber is the number GitHub gives the next issue or pull request.
func (s *Server) nextNumber() int {
	n := 0
	for k := range s.issues {
		n = max(n, k)
	}
	for _, pr := range s.prs {
		n = max(n, pr.Number)
	}
	return n + 1
}

// UpdatePullRequest changes pull request number (its head, state, review
// decision, threads) as a push, a merge or a reviewer would.
func (s *Server) UpdatePullRequest(number int, change func(*PullRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr := s.pr(number); pr != nil {
		change(pr)
	} else {
		s.t.Errorf("fakegithub: no pull request #%d", number)
	}
}

func (s *Server) pr(number int) *PullRequest {
	for _, pr := range s.prs {
		if pr.Number == number {
			return pr
		}
	}
	return nil
}

// AddThread adds a review thread to pull request number.
func (s *Server) AddThread(number int, t Thread) {
	s.UpdatePullRequest(number, func(pr *PullRequest) {
		t.ID = fmt.Sprintf("PRRT_%d_%d", number, len(pr.Threads)+1)
		pr.Threads = append(pr.Threads, t)
	})
}

// Threads is pull request number's review threads, replies included.
func (s *Server) Threads(number int) []Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr := s.pr(number); pr != nil {
		out := slices.Clone(pr.Threads)
		for i := range out {
			out[i].Comments = slices.Clone(out[i].Comments)
		}
		return out
	}
	return nil
}

// AddRun adds a workflow run, the newest.
func (s *Server) AddRun(r Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Status == "" {
		r.Status = "completed"
	}
	s.runs = append(s.runs, &r)
}

// pullRequestByNumber answers gh pr view N.
func (s *Server) pullRequestByNumber(vars map[string]any) (any, []map[string]any) {
	n := intVar(vars["pr_number"])
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.pr(n)
	if pr == nil {
		return map[string]any{"repository": map[string]any{"pullRequest": nil}},
			[]map[string]any{{"type": "NOT_FOUND", "path": []string{"repository", "pullRequest"},
				"message": fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n)}}
	}
	return map[string]any{"repository": map[string]any{"pullRequest": s.prFields(pr)}}, nil
}

// reviewThreads answers hive's HiveReviewThreads query.
func (s *Server) reviewThreads(vars map[string]any) (any, []map[string]any) {
	if vars["owner"] != s.Owner || vars["repo"] != s.Name {
		return nil, []map[string]any{{"type": "NOT_FOUND", "message": fmt.Sprintf("Could not resolve to a Repository with the name '%v/%v'.", vars["owner"], vars["repo"])}}
	}
	n := intVar(vars["number"])
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.pr(n)
	if pr == nil {
		return map[string]any{"repository": map[string]any{"pullRequest": nil}}, nil
	}
	nodes := []map[string]any{}
	for _, t := range pr.Threads {
		comments := []map[string]any{}
		for _, c := range t.Comments {
			comments = append(comments, map[string]any{"body": c.Body, "author": map[string]any{"login": c.Author}})
		}
		nodes = append(nodes, map[string]any{"id": t.ID, "isResolved": t.Resolved, "isOutdated": t.Outdated, "path": t.Path,
			"line": t.Line, "comments": map[string]any{"nodes": comments}})
	}
	return map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": map[string]any{"nodes": nodes}}}}, nil
}

// reply answers hive's HiveReply mutation: a comment added to a thread,
// by the token's user.
func (s *Server) reply(vars map[string]any) (any, []map[string]any) {
	id, _ := vars["thread"].(string)
	body, _ := vars["body"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pr := range s.prs {
		for i := range pr.Threads {
			if t := &pr.Threads[i]; t.ID == id {
				t.Comments = append(t.Comments, ThreadComment{Author: s.Owner, Body: body})
				return map[string]any{"addPullRequestReviewThreadReply": map[string]any{"comment": map[string]any{"id": fmt.Sprintf("%s_C%d", id, len(t.Comments))}}}, nil
			}
		}
	}
	return nil, []map[string]any{{"type": "NOT_FOUND", "message": fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}}
}

// actions answers the REST of GitHub Actions under
// /api/v3/repos/OWNER/NAME/actions/: the runs of a branch, a run, its
// jobs and its log archive.
func (s *Server) actions(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v3/repos/"+s.Owner+"/"+s.Name+"/actions/")
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok && parts[0] == "workflows" {
		// gh run list and view name each run's workflow from these.
		workflows := []map[string]any{}
		for id, name := range s.workflows() {
			workflows = append(workflows, map[string]any{"id": id + 1, "name": name, "state": "active",
				"path": ".github/workflows/" + strings.ToLower(strings.ReplaceAll(name, " ", "-")) + ".yml"})
		}
		switch n, _ := strconv.Atoi(parts[len(parts)-1]); {
		case len(parts) == 1:
			writeJSON(w, map[string]any{"total_count": len(workflows), "workflows": workflows})
		case len(parts) == 2 && n >= 1 && n <= len(workflows):
			writeJSON(w, workflows[n-1])
		default:
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		}
		return
	}
	if !ok || len(parts) < 1 || parts[0] != "runs" {
		s.t.Errorf("fakegithub: no route GET %s", r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	if len(parts) == 1 {
		branch := r.URL.Query().Get("branch")
		runs := []map[string]any{}
		for i := len(s.runs) - 1; i >= 0; i-- {
			if run := s.runs[i]; branch == "" || run.Branch == branch {
				runs = append(runs, s.runFields(run))
			}
		}
		writeJSON(w, map[string]any{"total_count": len(runs), "workflow_runs": runs})
		return
	}
	id, _ := strconv.ParseInt(parts[1], 10, 64)
	var run *Run
	for _, r := range s.runs {
		if r.ID == id {
			run = r
		}
	}
	if run == nil {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	switch {
	case len(parts) == 2:
		writeJSON(w, s.runFields(run))
	case len(parts) == 3 && parts[2] == "jobs":
		jobs := []map[string]any{}
		for k, j := range run.Jobs {
			steps := []map[string]any{}
			for n, st := range j.Steps {
				steps = append(steps, map[string]any{"name": st.Name, "status": "completed", "conclusion": st.Conclusion, "number": n + 1})
			}
			jobs = append(jobs, map[string]any{"id": run.ID*100 + int64(k) + 1, "run_id": run.ID, "name": j.Name, "status": "completed",
				"conclusion": j.Conclusion, "steps": steps, "started_at": s.created.Format(time.RFC3339), "completed_at": s.created.Format(time.RFC3339),
				"html_url": fmt.Sprintf("%s/actions/runs/%d/job/%d", s.URL(), run.ID, run.ID*100+int64(k)+1)})
		}
		writeJSON(w, map[string]any{"total_count": len(jobs), "jobs": jobs})
	case len(parts) == 3 && parts[2] == "logs":
		w.Header().Set("Content-Type", "application/zip")
		w.Write(s.logArchive(run))
	default:
		s.t.Errorf("fakegithub: no route GET %s", r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

// workflows is the runs' workflows' names, a workflow's id being its
// index + 1.
func (s *Server) workflows() []string {
	var names []string
	for _, r := range s.runs {
		if !slices.Contains(names, r.Workflow) {
			names = append(names, r.Workflow)
		}
	}
	return names
}

func (s *Server) runFields(r *Run) map[string]any {
	var conclusion any
	if r.Status == "completed" {
		conclusion = r.Conclusion
	}
	return map[string]any{"id": r.ID, "name": r.Workflow, "display_title": r.Workflow, "head_branch": r.Branch, "head_sha": r.HeadSHA,
		"status": r.Status, "conclusion": conclusion, "event": "pull_request", "run_number": r.ID, "run_attempt": 1, "workflow_id": slices.Index(s.workflows(), r.Workflow) + 1,
		"created_at": s.created.Format(time.RFC3339), "updated_at": s.created.Format(time.RFC3339), "run_started_at": s.created.Format(time.RFC3339),
		"url":         fmt.Sprintf("https://%s/api/v3/repos/%s/%s/actions/runs/%d", Hostname, s.Owner, s.Name, r.ID),
		"html_url":    fmt.Sprintf("%s/actions/runs/%d", s.URL(), r.ID),
		"jobs_url":    fmt.Sprintf("https://%s/api/v3/repos/%s/%s/actions/runs/%d/jobs", Hostname, s.Owner, s.Name, r.ID),
		"head_commit": map[string]any{"id": r.HeadSHA, "message": "hive"}, "repository": map[string]any{"full_name": s.Owner + "/" + s.Name}}
}

// logArchive is a run's logs as GitHub serves them: a zip of
// JOB/N_STEP.txt, each line after a timestamp.
func (s *Server) logArchive(r *Run) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, j := range r.Jobs {
		for n, st := range j.Steps {
			f, err := z.Create(fmt.Sprintf("%s/%d_%s.txt", j.Name, n+1, st.Name))
			if err != nil {
				s.t.Error(err)
				continue
			}
			for _, line := range strings.Split(strings.TrimRight(st.Log, "\n"), "\n") {
				fmt.Fprintf(f, "%s %s\n", s.created.Format("2006-01-02T15:04:05.0000000Z"), line)
			}
		}
	}
	if err := z.Close(); err != nil {
		s.t.Error(err)
	}
	return buf.Bytes()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// HeadOf is the commit branch is at in Origin, "" when it is not there.
func (s *Server) HeadOf(branch string) string {
	return s.headOf(&PullRequest{Head: branch})
}

// FailingRun is a run of workflow on head that failed in its "go test"
// step, whose log is log.
func FailingRun(id int64, workflow, branch, head, log string) Run {
	return Run{ID: id, Workflow: workflow, Branch: branch, HeadSHA: head, Conclusion: "failure",
		Jobs: []Job{{Name: workflow, Conclusion: "failure", Steps: []Step{
			{Name: "checkout", Conclusion: "success", Log: "checked out"},
			{Name: "go test", Conclusion: "failure", Log: log}}}}}
}

// PassingRun is a run of workflow on head that passed.
func PassingRun(id int64, workflow, branch, head string) Run {
	return Run{ID: id, Workflow: workflow, Branch: branch, HeadSHA: head, Conclusion: "success"}
}
