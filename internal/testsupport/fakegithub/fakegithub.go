package fakegithub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport"
)

// Issue is an issue of the repository.
type Issue struct {
	Number   int
	Title    string
	Body     string
	Labels   []string
	Comments []Comment
	Closed   bool
}

// Comment is a comment on an issue.
type Comment struct {
	Author string
	Body   string
}

// PullRequest is a pull request of the repository.
type PullRequest struct {
	Number     int
	Title      string
	Body       string
	Head, Base string // branch names
	State      string // OPEN, MERGED or CLOSED
	// HeadSHA is the commit its branch is at; ReviewDecision APPROVED,
	// CHANGES_REQUESTED, REVIEW_REQUIRED or "".
	HeadSHA        string
	ReviewDecision string
	Threads        []Thread
}

// Thread is a review thread of a pull request; ID is set when it is
// added.
type Thread struct {
	ID                 string
	Path               string
	Line               int
	Resolved, Outdated bool
	Comments           []ThreadComment
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	Author, Body string
}

// Run is a workflow run (GitHub Actions) of a branch: completed, with
// Conclusion, unless Status says otherwise (queued, in_progress).
type Run struct {
	ID         int64
	Workflow   string
	Branch     string
	HeadSHA    string
	Status     string // default completed
	Conclusion string // success, failure, ...
	Jobs       []Job
}

// Job is a job of a run; its steps' logs make the run's log archive.
type Job struct {
	Name       string
	Conclusion string
	Steps      []Step
}

// Step is a step of a job, numbered from 1 in order.
type Step struct {
	Name       string
	Conclusion string
	Log        string // lines; each gets GitHub's timestamp in the archive
}

// Request is one request the server answered: its GraphQL operation's
// name (or "METHOD PATH" for REST) and variables.
type Request struct {
	Operation string
	Variables map[string]any
}

// Server is the fake API of one repository, Owner/Name.
type Server struct {
	Owner, Name string
	// Origin, when set, is the bare repository that pushes of the
	// repository go to: a pull request's head commit is its branch's
	// there, as on GitHub, unless the pull request's HeadSHA says.
	Origin string

	t      testing.TB
	srv    *httptest.Server
	proxy  *httptest.Server // CONNECT to srv, whatever the host
	caFile string

	mu sync.Mutex
	// loggedOut: the token is refused (SetLoggedOut).
	loggedOut bool
	issues    map[int]*Issue
	prs       []*PullRequest
	runs      []*Run // oldest first
	reqs      []Request
	// created stamps the runs: gh caches a run's log archive by its id
	// and creation time.
	created time.Time
}

// Hostname is the server's name, as gh and git see it. gh matches a git
// remote to its host by name alone (a port is dropped), so the server
// cannot be 127.0.0.1:PORT: gh reaches it by this name through the
// server's CONNECT proxy (HTTPS_PROXY), on a certificate for this name
// that the server's own CA signs. The name resolves nowhere: a gh the
// proxy is not given to reaches nothing.
const Hostname = "github.hive.test"

// New starts the fake API of repository owner/name; it stops when t ends.
func New(t testing.TB, owner, name string) *Server {
	t.Helper()
	s := &Server{Owner: owner, Name: name, t: t, issues: map[int]*Issue{}, created: time.Now().UTC().Truncate(time.Second)}
	caPEM, cert, err := certificates(Hostname)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	s.proxy = httptest.NewServer(http.HandlerFunc(s.connect))
	t.Cleanup(s.proxy.Close)
	s.caFile = filepath.Join(t.TempDir(), "fakegithub-ca.pem")
	if err := os.WriteFile(s.caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// connect is the proxy: every CONNECT reaches the API server, whatever
// host it names.
func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "fakegithub: the proxy takes CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	up, err := net.Dial("tcp", s.srv.Listener.Addr().String())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "fakegithub: no hijacking", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	go func() {
		defer up.Close()
		defer down.Close()
		go func() {
			io.Copy(up, buf)
			up.(*net.TCPConn).CloseWrite()
		}()
		io.Copy(down, up)
	}()
}

// certificates makes a CA and a certificate for host that it signs: the
// CA's PEM, for SSL_CERT_FILE, and the server's certificate.
func certificates(host string) ([]byte, tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fakegithub test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Host is the server's host as gh names it.
func (s *Server) Host() string { return Hostname }

// Repo is the repository as gh's -R takes it: HOST/OWNER/NAME.
func (s *Server) Repo() string { return Hostname + "/" + s.Owner + "/" + s.Name }

// URL is the repository's web address; URL()+".git" is the git remote
// that tells gh which repository a checkout is of.
func (s *Server) URL() string { return "https://" + Hostname + "/" + s.Owner + "/" + s.Name }

// Env is the environment that points gh at the server, logged in, with
// its configuration in configDir: the server's host as gh's default host
// (a GitHub Enterprise host), reached through the server's proxy on a
// certificate its CA signs, the repository as the one gh works on where
// no git remote says, and nothing asked or announced.
func (s *Server) Env(configDir string) []string {
	return []string{
		"GH_HOST=" + Hostname,
		"GH_REPO=" + s.Repo(),
		"HTTPS_PROXY=" + s.proxy.URL,
		"https_proxy=" + s.proxy.URL,
		"NO_PROXY=",
		"no_proxy=",
		"GH_ENTERPRISE_TOKEN=fakegithub-token",
		"SSL_CERT_FILE=" + s.caFile,
		"GH_CONFIG_DIR=" + configDir,
		"GH_PROMPT_DISABLED=1",
		"GH_NO_UPDATE_NOTIFIER=1",
		"NO_COLOR=1",
	}
}

// AddIssue adds (or replaces) an issue.
func (s *Server) AddIssue(i Issue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issues[i.Number] = &i
}

// Requests is every request the server answered, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *Server) issueURL(n int) string { return fmt.Sprintf("%s/issues/%d", s.URL(), n) }

var operationRE = regexp.MustCompile(`(?:query|mutation)\s+(\w+)`)

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodGet && (r.URL.Path == "/api/v3/" || r.URL.Path == "/api/v3/user") {
		// gh auth status: the token's scopes, and who it is.
		s.record(Request{Operation: r.Method + " " + r.URL.Path})
		s.mu.Lock()
		out := s.loggedOut
		s.mu.Unlock()
		if out {
			http.Error(w, `{"message": "Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("X-Oauth-Scopes", "repo, read:org, workflow")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"login": %q, "current_user_url": "https://%s/api/v3/user"}`, s.Owner, Hostname)
		return
	}
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v3/repos/") {
		s.record(Request{Operation: r.Method + " " + r.URL.Path})
		s.actions(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/api/graphql" {
		s.record(Request{Operation: r.Method + " " + r.URL.Path})
		s.t.Errorf("fakegithub: no route %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"message":"fakegithub: no route"}`, http.StatusNotFound)
		return
	}
	var q struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &q); err != nil {
		http.Error(w, `{"message":"fakegithub: not JSON"}`, http.StatusBadRequest)
		return
	}
	op := ""
	if m := operationRE.FindStringSubmatch(q.Query); m != nil {
		op = m[1]
	}
	s.record(Request{Operation: op, Variables: q.Variables})
	var data any
	var errs []map[string]any
	switch op {
	case "Issue_fields":
		// gh asks which fields the server's Issue has, to know what to
		// ask for: github.com's that gh 2.23 looks for.
		var fields []map[string]string
		for _, f := range []string{"id", "number", "title", "body", "state", "stateReason", "url", "labels", "comments", "author", "createdAt", "closed"} {
			fields = append(fields, map[string]string{"name": f})
		}
		data = map[string]any{"Issue": map[string]any{"fields": fields}}
	case "PullRequestCreate":
		input, _ := q.Variables["input"].(map[string]any)
		pr := s.createPullRequest(input)
		data = map[string]any{"createPullRequest": map[string]any{"pullRequest": s.prFields(pr)}}
	case "PullRequestProjectItems":
		// gh pr edit asks which projects the pull request is in: none.
		data = map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"projectItems": map[string]any{
			"nodes": []any{}, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": ""}}}}}
	case "PullRequestUpdate":
		input, _ := q.Variables["input"].(map[string]any)
		data, errs = s.updatePullRequest(input)
	case "PullRequestForBranch":
		data = s.pullRequestsFor(q.Variables)
	case "PullRequestByNumber":
		data, errs = s.pullRequestByNumber(q.Variables)
	case "HiveReviewThreads":
		data, errs = s.reviewThreads(q.Variables)
	case "HiveReply":
		data, errs = s.reply(q.Variables)
	case "UserCurrent":
		data = map[string]any{"viewer": map[string]any{"login": s.Owner}}
	case "RepositoryInfo":
		data = map[string]any{"repository": s.repository()}
	case "IssueByNumber":
		data, errs = s.issueByNumber(q.Variables)
	case "IssueSearch":
		data = s.issueSearch(q.Variables)
	case "IssueList":
		// gh issue list with no filter but the state.
		nodes := s.matching(nil, fmt.Sprint(q.Variables["states"]) == "[CLOSED]")
		data = map[string]any{"repository": map[string]any{"hasIssuesEnabled": true,
			"issues": map[string]any{"totalCount": len(nodes), "nodes": nodes, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": ""}}}}
	case "CommentsForIssue":
		// gh issue view --json comments reads them again, by the issue's id.
		s.mu.Lock()
		var n int
		fmt.Sscanf(fmt.Sprint(q.Variables["id"]), "I_%d", &n)
		if i := s.issues[n]; i != nil {
			data = map[string]any{"node": map[string]any{"comments": s.comments(i)}}
		} else {
			errs = []map[string]any{{"type": "NOT_FOUND", "message": fmt.Sprintf("Could not resolve to a node with the global id of '%v'", q.Variables["id"])}}
		}
		s.mu.Unlock()
	default:
		s.t.Errorf("fakegithub: unknown GraphQL operation %q:\n%s", op, q.Query)
		errs = []map[string]any{{"message": "fakegithub: unknown operation " + op}}
	}
	w.Header().Set("Content-Type", "application/json")
	out := map[string]any{"data": data}
	if errs != nil {
		out["errors"] = errs
	}
	json.NewEncoder(w).Encode(out)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

// issueByNumber answers gh issue view.
func (s *Server) issueByNumber(vars map[string]any) (any, []map[string]any) {
	n := intVar(vars["number"])
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.issues[n]
	if i == nil || vars["owner"] != s.Owner || vars["repo"] != s.Name {
		return map[string]any{"repository": map[string]any{"hasIssuesEnabled": true, "issue": nil}},
			[]map[string]any{{"type": "NOT_FOUND", "path": []string{"repository", "issue"},
				"message": fmt.Sprintf("Could not resolve to an issue or pull request with the number of %d.", n)}}
	}
	issue := s.issueFields(i)
	issue["__typename"] = "Issue"
	issue["comments"] = s.comments(i)
	return map[string]any{"repository": map[string]any{"hasIssuesEnabled": true, "issue": issue}}, nil
}

// PullRequests is the repository's pull requests, oldest first.
func (s *Server) PullRequests() []PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PullRequest
	for _, pr := range s.prs {
		out = append(out, *pr)
	}
	return out
}

// pullRequestsFor answers gh's look for a branch's pull requests in the
// states asked (gh pr create: is one open already?), or in any (gh pr view
// BRANCH).
func (s *Server) pullRequestsFor(vars map[string]any) any {
	head, _ := vars["headRefName"].(string)
	states := fmt.Sprint(vars["states"])
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := []map[string]any{}
	for i := len(s.prs) - 1; i >= 0; i-- {
		pr := s.prs[i]
		// No states asked (gh pr view BRANCH): any.
		if pr.Head == head && (vars["states"] == nil || strings.Contains(states, pr.State)) {
			nodes = append(nodes, s.prFields(pr))
		}
	}
	return map[string]any{"repository": map[string]any{"pullRequests": map[string]any{"nodes": nodes}, "defaultBranchRef": map[string]any{"name": "main"}}}
}

// updatePullRequest applies gh pr edit's title and body to the pull
// request the input's id names.
func (s *Server) updatePullRequest(input map[string]any) (any, []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	fmt.Sscanf(fmt.Sprint(input["pullRequestId"]), "PR_%d", &n)
	pr := s.pr(n)
	if pr == nil {
		return nil, []map[string]any{{"type": "NOT_FOUND", "message": fmt.Sprintf("Could not resolve to a node with the global id of '%v'", input["pullRequestId"])}}
	}
	if v, ok := input["title"].(string); ok {
		pr.Title = v
	}
	if v, ok := input["body"].(string); ok {
		pr.Body = v
	}
	return map[string]any{"updatePullRequest": map[string]any{"__typename": "UpdatePullRequestPayload"}}, nil
}

// createPullRequest opens a pull request, numbered after every issue and
// pull request, as GitHub numbers them.
func (s *Server) createPullRequest(input map[string]any) *PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	str := func(k string) string { v, _ := input[k].(string); return v }
	pr := &PullRequest{Number: s.nextNumber(), Title: str("title"), Body: str("body"), Head: str("headRefName"), Base: str("baseRefName"), State: "OPEN"}
	s.prs = append(s.prs, pr)
	return pr
}

// headOf is the commit pull request pr's branch is at.
func (s *Server) headOf(pr *PullRequest) string {
	if pr.HeadSHA != "" || s.Origin == "" {
		return pr.HeadSHA
	}
	out, err := exec.Command("git", "-C", s.Origin, "rev-parse", "--verify", "-q", "refs/heads/"+pr.Head).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (s *Server) prFields(pr *PullRequest) map[string]any {
	return map[string]any{"url": fmt.Sprintf("%s/pull/%d", s.URL(), pr.Number), "id": fmt.Sprintf("PR_%d", pr.Number), "number": pr.Number,
		"state": pr.State, "title": pr.Title, "body": pr.Body, "baseRefName": pr.Base, "headRefName": pr.Head, "isCrossRepository": false,
		"headRefOid": s.headOf(pr), "reviewDecision": pr.ReviewDecision,
		"headRepositoryOwner": map[string]any{"id": "U_1", "login": s.Owner}}
}

// repository is the repository's fields that gh reads.
func (s *Server) repository() map[string]any {
	return map[string]any{"id": "R_1", "name": s.Name, "owner": map[string]any{"login": s.Owner}, "hasIssuesEnabled": true,
		"description": "", "hasWikiEnabled": false, "viewerPermission": "ADMIN", "defaultBranchRef": map[string]any{"name": "main"},
		"parent": nil, "mergeCommitAllowed": true, "rebaseMergeAllowed": true, "squashMergeAllowed": true, "isPrivate": false,
		"url": s.URL(), "nameWithOwner": s.Owner + "/" + s.Name}
}

// comments is i's comments as the API pages them (in one page).
func (s *Server) comments(i *Issue) map[string]any {
	nodes := []map[string]any{}
	for k, c := range i.Comments {
		nodes = append(nodes, map[string]any{
			"id": fmt.Sprintf("IC_%d_%d", i.Number, k+1), "author": map[string]any{"login": c.Author}, "authorAssociation": "MEMBER",
			"body": c.Body, "createdAt": "2026-11-30T12:00:00Z", "includesCreatedEdit": false, "isMinimized": false,
			"minimizedReason": "", "reactionGroups": []any{}, "url": fmt.Sprintf("%s#issuecomment-%d", s.issueURL(i.Number), k+1), "viewerDidAuthor": false,
		})
	}
	return map[string]any{"nodes": nodes, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": ""}, "totalCount": len(nodes)}
}

// issueSearch answers gh issue list: open issues with every label the
// search names.
func (s *Server) issueSearch(vars map[string]any) any {
	query, _ := vars["query"].(string)
	var labels []string
	closed := false
	for _, term := range strings.Fields(query) {
		switch {
		case strings.HasPrefix(term, "label:"):
			labels = append(labels, strings.Trim(strings.TrimPrefix(term, "label:"), `"`))
		case term == "state:closed":
			closed = true
		}
	}
	nodes := s.matching(labels, closed)
	return map[string]any{
		"repository": map[string]any{"hasIssuesEnabled": true},
		"search":     map[string]any{"issueCount": len(nodes), "nodes": nodes, "pageInfo": map[string]any{"hasNextPage": false, "endCursor": ""}},
	}
}

// matching is the issues, open or closed, that carry every one of labels,
// newest first, as GitHub lists them.
func (s *Server) matching(labels []string, closed bool) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := []map[string]any{}
	for _, n := range slices.Sorted(maps.Keys(s.issues)) {
		i := s.issues[n]
		if i.Closed == closed && containsAll(i.Labels, labels) {
			nodes = append(nodes, s.issueFields(i))
		}
	}
	slices.Reverse(nodes)
	return nodes
}

// issueFields are the fields of i that both operations give.
func (s *Server) issueFields(i *Issue) map[string]any {
	var labels []map[string]any
	for k, l := range i.Labels {
		labels = append(labels, map[string]any{"id": fmt.Sprintf("LA_%d", k+1), "name": l, "description": "", "color": "ededed"})
	}
	state := "OPEN"
	if i.Closed {
		state = "CLOSED"
	}
	return map[string]any{
		"id": fmt.Sprintf("I_%d", i.Number), "number": i.Number, "title": i.Title, "body": i.Body, "state": state,
		"url": s.issueURL(i.Number), "labels": map[string]any{"nodes": labels, "totalCount": len(labels)},
	}
}

func intVar(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return 0
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// GhBinary finds the gh CLI the tests run (Debian's, which `make gh`
// unpacks into .tools/gh): HIVE_GH, then .tools, then PATH. Not found, it
// fails the test where CI is set and skips it elsewhere.
func GhBinary(t testing.TB) string {
	t.Helper()
	return testsupport.FindTool(t, "gh", os.Getenv("HIVE_GH"), filepath.Join(".tools", "gh", "usr", "bin", "gh"), "gh")
}

// SetLoggedOut makes the server refuse gh's token, as GitHub refuses one
// revoked (gh auth status fails), or take it again.
func (s *Server) SetLoggedOut(out bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loggedOut = out
}

// GhOnPath writes a program gh into a new folder that runs the real gh
// (GhBinary) with the server's environment (Env), and returns the folder,
// for PATH. Where other programs run beside gh, as agents do beside hive,
// they then do not see that environment: its HTTPS proxy and certificate
// authority are for gh alone.
func (s *Server) GhOnPath(t testing.TB) string {
	t.Helper()
	gh := GhBinary(t)
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	for _, kv := range s.Env(t.TempDir()) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	fmt.Fprintf(&b, "exec '%s' \"$@\"\n", strings.ReplaceAll(gh, "'", `'\''`))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
