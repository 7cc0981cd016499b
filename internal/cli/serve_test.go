package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/serve"
	"github.com/hivectl/hive/internal/serve/views"
)

// servePlan is a plan of a test phase: its checkpoint tasks in order
// (verify, decision, action), between automatic tasks.
type servePlan struct {
	id          string
	checkpoints []string
}

// serveRepo makes a git repository holding phase 01 with plans, and returns
// its root and the environment hive runs with there. notifications is the
// config's notifications object ("" for none but the quiet defaults).
func serveRepo(t *testing.T, plans []servePlan, notifications string, extraEnv ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	phase := filepath.Join(dir, ".planning", "phases", "01-web")
	if err := os.MkdirAll(phase, 0o755); err != nil {
		t.Fatal(err)
	}
	if notifications == "" {
		notifications = `{"bell": false, "desktop": false}`
	}
	cfg := fmt.Sprintf(`{"parallelization": {"enabled": true, "max_concurrent_agents": %d}, "notifications": %s}`, len(plans)+1, notifications)
	if err := os.WriteFile(filepath.Join(dir, ".planning", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nphase: 01-web\nplan: %s\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [src/%s.go]\nautonomous: %v\n---\n<objective>Part %s</objective>\n<tasks>\n",
			strings.TrimPrefix(p.id, "01-"), p.id, len(p.checkpoints) == 0, p.id)
		n := 1
		task := func() {
			fmt.Fprintf(&b, "<task type=\"auto\"><name>Task %d: Write part %d</name><files>src/%s.go</files><action>Write it.</action><done>It exists.</done></task>\n", n, n, p.id)
			n++
		}
		task()
		for _, cp := range p.checkpoints {
			switch cp {
			case "verify":
				fmt.Fprintf(&b, "<task type=\"checkpoint:human-verify\" gate=\"blocking\"><name>Task %d: Look at the page</name><what-built>The page</what-built><how-to-verify>Open it at 375px.</how-to-verify><resume-signal>Type \"approved\" or describe issues</resume-signal></task>\n", n)
			case "decision":
				fmt.Fprintf(&b, "<task type=\"checkpoint:decision\" gate=\"blocking\"><name>Task %d: Choose the provider</name><decision>Select the auth provider</decision><context>Three options.</context><options><option id=\"supabase\"><name>Supabase</name></option><option id=\"clerk\"><name>Clerk</name></option><option id=\"nextauth\"><name>NextAuth</name></option></options><resume-signal>Select: supabase, clerk, or nextauth</resume-signal></task>\n", n)
			case "action":
				fmt.Fprintf(&b, "<task type=\"checkpoint:human-action\" gate=\"blocking\"><name>Task %d: Create the API key</name><action>Create the key in the dashboard.</action><resume-signal>Type \"done\"</resume-signal></task>\n", n)
			}
			n++
			task()
		}
		b.WriteString("</tasks>\n")
		if err := os.WriteFile(filepath.Join(phase, p.id+"-PLAN.md"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GIT_AUTHOR_NAME=hive test", "GIT_AUTHOR_EMAIL=test@hive.invalid",
		"GIT_COMMITTER_NAME=hive test", "GIT_COMMITTER_EMAIL=test@hive.invalid", "GIT_CONFIG_NOSYSTEM=1")
	env = append(env, extraEnv...)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		git := exec.Command("git", append([]string{"-C", dir}, args...)...)
		git.Env = env
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir, env
}

// hiveCmd is the hive under test (this binary, as testscript installed it).
func hiveCmd(t *testing.T, ctx context.Context, env []string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("hive")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	return cmd
}

// stoppedRun runs phase 01 of dir under CI=true: every checkpoint opens,
// then hive stops (exit 5) and the run waits for answers in the journal.
func stoppedRun(t *testing.T, dir string, env []string) {
	t.Helper()
	cmd := hiveCmd(t, context.Background(), append(env, "CI=true"), "execute-phase", "1", "--agent", "sim", "--repo", dir)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exit.NeedsHuman {
		t.Fatalf("execute-phase: exit %d (%v), want %d\n%s", code, err, exit.NeedsHuman, out)
	}
}

// testServer is hive serve in this process, on a loopback port.
type testServer struct {
	*httptest.Server
	srv   *serve.Server
	token string
	key   []byte
	dir   string
}

func startServe(t *testing.T, dir string, rate float64) *testServer {
	t.Helper()
	key, err := serve.LoadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{token: newToken(), key: key, dir: dir}
	var logs strings.Builder
	var mu sync.Mutex
	ts.srv, err = serve.New(serve.Options{Root: dir, Token: ts.token, Key: key, PublicURL: cfg.Notifications.PublicURL, Rate: rate, Poll: 50 * time.Millisecond,
		RenderLog: func(w io.Writer, log io.Reader) { renderLog(w, log) },
		Logf: func(format string, args ...any) {
			mu.Lock()
			fmt.Fprintf(&logs, format+"\n", args...)
			mu.Unlock()
		},
		LogRequests: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.srv.Run(ctx) }()
	ts.Server = httptest.NewUnstartedServer(ts.srv)
	ts.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	ts.Start()
	t.Cleanup(func() {
		cancel()
		ts.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(logs.String(), ts.token) {
			t.Errorf("the token is in hive serve's log:\n%s", logs.String())
		}
	})
	return ts
}

// do sends a request and returns the status and body.
func (ts *testServer) do(t *testing.T, c *http.Client, method, path string, body io.Reader, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c == nil {
		c = ts.Client()
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (ts *testServer) bearer() []string { return []string{"Authorization", "Bearer " + ts.token} }

// answerJSON posts an answer through the API with the bearer token.
func (ts *testServer) answerJSON(t *testing.T, run, plan string, cp int, text string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"answer": text})
	return ts.do(t, nil, "POST", fmt.Sprintf("/api/runs/%s/checkpoints/%s/%d/answer", run, plan, cp), strings.NewReader(string(b)),
		append(ts.bearer(), "Content-Type", "application/json")...)
}

// checkpoints lists the open checkpoints through the API, once the server
// has read the journal.
func (ts *testServer) checkpoints(t *testing.T) []views.CheckpointView {
	t.Helper()
	code, body := ts.do(t, nil, "GET", "/api/checkpoints", nil, ts.bearer()...)
	if code != http.StatusOK {
		t.Fatalf("GET /api/checkpoints: %d %s", code, body)
	}
	var cps []views.CheckpointView
	if err := json.Unmarshal([]byte(body), &cps); err != nil {
		t.Fatal(err)
	}
	return cps
}

func findCP(t *testing.T, cps []views.CheckpointView, plan string) views.CheckpointView {
	t.Helper()
	for _, cp := range cps {
		if cp.Plan == plan {
			return cp
		}
	}
	t.Fatalf("no open checkpoint of %s in %+v", plan, cps)
	return views.CheckpointView{}
}

// browser logs a cookie-jar client in through the one-time login link and
// returns it with its CSRF token.
func (ts *testServer) browser(t *testing.T) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	code, _ := ts.do(t, c, "GET", ts.srv.LoginURL(), nil)
	if code != http.StatusOK {
		t.Fatalf("login link: %d", code)
	}
	code, body := ts.do(t, c, "GET", "/api/session", nil)
	var s struct{ CSRF string }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &s) != nil || s.CSRF == "" {
		t.Fatalf("GET /api/session: %d %s", code, body)
	}
	return c, s.CSRF
}

// answerEvents counts the answers journaled for plan in run 1.
func answerEvents(t *testing.T, dir, plan string) int {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, ".hive", "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	n := 0
	err = j.Each(1, func(rec journal.Record) error {
		var ev struct{ Plan string }
		if rec.Type == "answer" && json.Unmarshal(rec.Payload, &ev) == nil && ev.Plan == plan {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServeSecurity holds hive serve to its security model against a real
// run stopped at its checkpoints.
func TestServeSecurity(t *testing.T) {
	dir, env := serveRepo(t, []servePlan{{"01-01", []string{"verify"}}, {"01-02", []string{"decision"}},
		{"01-03", []string{"verify"}}, {"01-04", []string{"action"}}, {"01-05", []string{"verify"}}}, "")
	stoppedRun(t, dir, env)
	ts := startServe(t, dir, 1000)
	cps := ts.checkpoints(t)
	if len(cps) != 5 {
		t.Fatalf("open checkpoints: %+v, want 5", cps)
	}

	t.Run("no token is 401", func(t *testing.T) {
		for _, p := range []string{"/api/runs", "/api/checkpoints", "/api/runs/phase-1", "/api/events", "/runs/phase-1/output/01-01"} {
			if code, _ := ts.do(t, nil, "GET", p, nil); code != http.StatusUnauthorized {
				t.Errorf("GET %s without a token: %d, want 401", p, code)
			}
		}
		if code, _ := ts.do(t, nil, "GET", "/api/runs", nil, "Authorization", "Bearer wrong-token-0123456789"); code != http.StatusUnauthorized {
			t.Errorf("a wrong token: %d, want 401", code)
		}
		if code, _ := ts.answerJSON(t, "phase-1", "01-01", 1, "approved"); code == http.StatusUnauthorized {
			t.Errorf("the right token: 401")
		}
		// A browser without a session is sent to the login page.
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		if code, _ := ts.do(t, c, "GET", "/", nil, "Accept", "text/html"); code != http.StatusSeeOther {
			t.Errorf("GET / from a browser without a session: %d, want 303 to /login", code)
		}
		// A one-time login link works once.
		link := ts.srv.LoginURL()
		jar, _ := cookiejar.New(nil)
		if code, _ := ts.do(t, &http.Client{Jar: jar}, "GET", link, nil); code != http.StatusOK {
			t.Errorf("login link: %d", code)
		}
		if code, _ := ts.do(t, nil, "GET", link, nil); code != http.StatusGone {
			t.Errorf("login link used twice: %d, want 410", code)
		}
	})

	t.Run("wrong origin or no CSRF token is 403", func(t *testing.T) {
		c, csrf := ts.browser(t)
		cp := findCP(t, ts.checkpoints(t), "01-03")
		path := fmt.Sprintf("/runs/phase-1/checkpoints/01-03/%d", cp.ID)
		form := func(v url.Values) io.Reader { return strings.NewReader(v.Encode()) }
		ct := "application/x-www-form-urlencoded"
		if code, _ := ts.do(t, c, "POST", path, form(url.Values{"answer": {"approved"}}), "Content-Type", ct, "Origin", ts.URL); code != http.StatusForbidden {
			t.Errorf("no CSRF token: %d, want 403", code)
		}
		if code, _ := ts.do(t, c, "POST", path, form(url.Values{"answer": {"approved"}, "csrf": {"forged"}}), "Content-Type", ct, "Origin", ts.URL); code != http.StatusForbidden {
			t.Errorf("a wrong CSRF token: %d, want 403", code)
		}
		if code, _ := ts.do(t, c, "POST", path, form(url.Values{"answer": {"approved"}, "csrf": {csrf}}), "Content-Type", ct, "Origin", "http://evil.example"); code != http.StatusForbidden {
			t.Errorf("another origin: %d, want 403", code)
		}
		if code, _ := ts.do(t, c, "POST", path, form(url.Values{"answer": {"approved"}, "csrf": {csrf}}), "Content-Type", ct); code != http.StatusForbidden {
			t.Errorf("a session without Origin or Referer: %d, want 403", code)
		}
		// A bearer program with another Origin is refused too.
		if code, _ := ts.do(t, nil, "POST", "/api/runs/phase-1/checkpoints/01-03/"+fmt.Sprint(cp.ID)+"/answer", strings.NewReader(`{"answer":"approved"}`),
			append(ts.bearer(), "Content-Type", "application/json", "Origin", "http://evil.example")...); code != http.StatusForbidden {
			t.Errorf("bearer with another origin: %d, want 403", code)
		}
		if n := answerEvents(t, dir, "01-03"); n != 0 {
			t.Fatalf("%d answers journaled by refused requests", n)
		}
		code, body := ts.do(t, c, "POST", path, form(url.Values{"answer": {"approved"}, "csrf": {csrf}}), "Content-Type", ct, "Origin", ts.URL, "Accept", "text/html")
		if code != http.StatusOK || !strings.Contains(body, "Answer recorded") {
			t.Errorf("the page's own form: %d\n%s", code, body)
		}
		if strings.Contains(body, ts.token) {
			t.Errorf("the token is in a page")
		}
	})

	t.Run("signed link works once, then 410; expired 410", func(t *testing.T) {
		cp := findCP(t, ts.checkpoints(t), "01-04")
		exp := time.Now().Add(time.Hour).Unix()
		link := serve.SignLink(ts.key, serve.Link{Action: serve.LinkAnswer, Phase: "01", Plan: "01-04", Checkpoint: cp.ID, Answer: "done", Expires: exp})
		if code, body := ts.do(t, nil, "GET", link, nil, "Accept", "text/html"); code != http.StatusOK || !strings.Contains(body, "Answer done") {
			t.Errorf("GET of a fresh link: %d\n%s", code, body)
		}
		if code, body := ts.do(t, nil, "POST", link, nil, "Origin", ts.URL); code != http.StatusOK {
			t.Errorf("the link used once: %d %s", code, body)
		}
		if code, _ := ts.do(t, nil, "POST", link, nil, "Origin", ts.URL); code != http.StatusGone {
			t.Errorf("the link used again: %d, want 410", code)
		}
		if code, _ := ts.do(t, nil, "GET", link, nil); code != http.StatusGone {
			t.Errorf("GET of a used link: %d, want 410", code)
		}
		if n := answerEvents(t, dir, "01-04"); n != 1 {
			t.Errorf("%d answers journaled for 01-04, want 1", n)
		}
		open := findCP(t, ts.checkpoints(t), "01-05")
		expired := serve.SignLink(ts.key, serve.Link{Action: serve.LinkOpen, Run: "phase-1", Plan: "01-05", Checkpoint: open.ID, Expires: time.Now().Add(-time.Second).Unix()})
		if code, _ := ts.do(t, nil, "GET", expired, nil); code != http.StatusGone {
			t.Errorf("GET of an expired link: %d, want 410", code)
		}
		if code, _ := ts.do(t, nil, "POST", expired, nil, "Origin", ts.URL); code != http.StatusGone {
			t.Errorf("POST of an expired link: %d, want 410", code)
		}
		forged := serve.SignLink([]byte(strings.Repeat("k", 32)), serve.Link{Action: serve.LinkOpen, Run: "phase-1", Plan: "01-05", Checkpoint: open.ID, Expires: exp})
		if code, _ := ts.do(t, nil, "POST", forged, nil, "Origin", ts.URL); code != http.StatusForbidden {
			t.Errorf("a link signed with another key: %d, want 403", code)
		}
		// An open link gives a session that sees its checkpoint only.
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		good := serve.SignLink(ts.key, serve.Link{Action: serve.LinkOpen, Run: "phase-1", Plan: "01-05", Checkpoint: open.ID, Expires: exp})
		code, body := ts.do(t, c, "POST", good, nil, "Origin", ts.URL, "Accept", "text/html")
		if code != http.StatusOK || !strings.Contains(body, `action="/runs/phase-1/checkpoints/01-05/`) {
			t.Errorf("an open link: %d\n%s", code, body)
		}
		for _, p := range []string{"/api/runs", "/api/checkpoints", "/api/runs/phase-1", "/runs/phase-1/checkpoints/01-01/1"} {
			if code, _ := ts.do(t, c, "GET", p, nil); code != http.StatusForbidden {
				t.Errorf("GET %s in a link's session: %d, want 403", p, code)
			}
		}
	})

	t.Run("an answer posted twice at once is applied once", func(t *testing.T) {
		cp := findCP(t, ts.checkpoints(t), "01-02")
		const n = 8
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, _ := ts.answerJSON(t, "phase-1", "01-02", cp.ID, []string{"clerk", "supabase"}[i%2])
				codes <- code
			}()
		}
		wg.Wait()
		close(codes)
		got := map[int]int{}
		for c := range codes {
			got[c]++
		}
		if got[http.StatusOK] != 1 || got[http.StatusConflict] != n-1 {
			t.Errorf("statuses %v: want one 200 and %d 409", got, n-1)
		}
		if n := answerEvents(t, dir, "01-02"); n != 1 {
			t.Errorf("%d answers journaled for 01-02, want 1", n)
		}
		code, body := ts.answerJSON(t, "phase-1", "01-02", cp.ID, "clerk")
		if code != http.StatusConflict || !strings.Contains(body, "already answered") {
			t.Errorf("a late answer: %d %s, want 409 already answered", code, body)
		}
	})

	t.Run("a 10 MB body is refused", func(t *testing.T) {
		big := strings.NewReader(`{"answer": "` + strings.Repeat("x", 10<<20) + `"}`)
		code, _ := ts.do(t, nil, "POST", "/api/runs/phase-1/checkpoints/01-05/1/answer", big, append(ts.bearer(), "Content-Type", "application/json")...)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("10 MB body: %d, want 413", code)
		}
		// Sent without a length, it is cut at the limit.
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(`{"answer": "`))
			for range 10 {
				if _, err := pw.Write([]byte(strings.Repeat("x", 1<<20))); err != nil {
					break
				}
			}
			pw.Close()
		}()
		code, _ = ts.do(t, nil, "POST", "/api/runs/phase-1/checkpoints/01-05/1/answer", pr, append(ts.bearer(), "Content-Type", "application/json")...)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("10 MB chunked body: %d, want 413", code)
		}
	})

	t.Run("path traversal is refused", func(t *testing.T) {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, p := range []string{
			"/runs/phase-1/output/..%2f..%2f..%2fetc%2fpasswd",
			"/runs/phase-1/output/..",
			"/runs/..%2f..%2fetc/output/01-01",
			"/runs/phase-1%2f..%2f..%2fx",
			"/runs/phase-1/checkpoints/..%2f01-01/1",
			"/api/runs/..%2fphase-1",
			"/static/..%2fpages.go",
			"/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
			"/runs/phase-1/output/%2e%2e%2fjournal.db",
		} {
			code, body := ts.do(t, c, "GET", p, nil, ts.bearer()...)
			if code != http.StatusBadRequest && code != http.StatusNotFound && code/100 != 3 {
				t.Errorf("GET %s: %d, want 400, 404 or a redirect", p, code)
			}
			if strings.Contains(body, "root:") || strings.Contains(body, "SQLite") || strings.Contains(body, "package serve") {
				t.Errorf("GET %s served a file:\n%s", p, body)
			}
		}
		code, _ := ts.do(t, nil, "POST", "/api/runs/phase-1/checkpoints/..%2f..%2fx/1/answer", strings.NewReader(`{"answer":"x"}`), append(ts.bearer(), "Content-Type", "application/json")...)
		if code != http.StatusBadRequest {
			t.Errorf("an answer to a traversal: %d, want 400", code)
		}
	})
}

// loginLine finds the login link hive serve prints.
var loginLine = regexp.MustCompile(`Log in \(works once, for 15 minutes\): (http://\S+)`)

// startServeCmd starts the real hive serve on a free loopback port, with
// the flags given, and returns its login link. Its output goes to files
// of the test's own (a pipe it reads to the end and a locked buffer), so
// that no goroutine of exec or of the test still touches them once the
// cleanup has waited for the process: the race detector found one that
// did while StdoutPipe's reader and Wait ran at once.
func startServeCmd(t *testing.T, dir string, env []string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := hiveCmd(t, ctx, env, append([]string{"serve", "--addr", "127.0.0.1:0", "--repo", dir}, flags...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = pw, &stderr
	err = cmd.Start()
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		t.Fatal(err)
	}
	lines := make(chan string)
	found := make(chan struct{}) // closed once the link is read: the rest is drained
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-found:
			}
		}
		io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		<-drained
		if t.Failed() {
			t.Logf("hive serve's stderr:\n%s", stderr.String())
		}
	})
	for {
		select {
		case line := <-lines:
			if m := loginLine.FindStringSubmatch(line); m != nil {
				close(found)
				return m[1]
			}
		case <-drained:
			t.Fatalf("hive serve printed no login link; stderr:\n%s", stderr.String())
			return ""
		}
	}
}

// TestServeNotificationLinks follows the links a webhook notification
// carries when notifications.public_url is set: an answer link answers its
// checkpoint once, and the open link opens its page.
func TestServeNotificationLinks(t *testing.T) {
	var mu sync.Mutex
	var msgs []map[string]any
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if json.NewDecoder(r.Body).Decode(&m) == nil {
			mu.Lock()
			msgs = append(msgs, m)
			mu.Unlock()
		}
	}))
	defer hook.Close()
	notifications := fmt.Sprintf(`{"bell": false, "desktop": false, "webhook_url": %q, "public_url": "https://hive.example.com/"}`, hook.URL)
	dir, env := serveRepo(t, []servePlan{{"01-01", []string{"decision"}}}, notifications)
	stoppedRun(t, dir, env)
	ts := startServe(t, dir, 1000)
	mu.Lock()
	var links map[string]any
	var open string
	for _, m := range msgs {
		if m["kind"] == "checkpoint" {
			links, _ = m["answers"].(map[string]any)
			open, _ = m["url"].(string)
		}
	}
	mu.Unlock()
	if links == nil || !strings.HasPrefix(open, "https://hive.example.com/l/") {
		t.Fatalf("the checkpoint's notification has no links: %v", msgs)
	}
	clerk, _ := links["clerk"].(string)
	path := strings.TrimPrefix(clerk, "https://hive.example.com")
	if !strings.HasPrefix(path, "/l/") {
		t.Fatalf("no link that answers clerk: %v", links)
	}
	// Through the public address, as a phone's browser posts it.
	if code, body := ts.do(t, nil, "POST", path, nil, "Origin", "https://hive.example.com"); code != http.StatusOK {
		t.Fatalf("the clerk link: %d %s", code, body)
	}
	if code, _ := ts.do(t, nil, "POST", path, nil, "Origin", "https://hive.example.com"); code != http.StatusGone {
		t.Errorf("the clerk link again: %d, want 410", code)
	}
	supabase := strings.TrimPrefix(links["supabase"].(string), "https://hive.example.com")
	// The checkpoint's other links are gone with it.
	if code, body := ts.do(t, nil, "POST", supabase, nil, "Origin", ts.URL); code != http.StatusGone || !strings.Contains(body, "not open any more") {
		t.Errorf("another answer's link after the first: %d %s, want 410", code, body)
	}
	if n := answerEvents(t, dir, "01-01"); n != 1 {
		t.Errorf("%d answers journaled, want 1", n)
	}
	// Resumed, the run takes the answer given through the link.
	cmd := hiveCmd(t, context.Background(), append(env, "CI=true"), "execute-phase", "1", "--repo", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "log", "--all", "--format=%B").Output(); err != nil || !strings.Contains(string(out), "clerk") {
		t.Errorf("the decision is not in the commits (%v):\n%s", err, out)
	}
}
