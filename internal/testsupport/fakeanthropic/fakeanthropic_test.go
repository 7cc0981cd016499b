package fakeanthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport"
)

// claudeBin finds the pinned claude CLI (failing in CI when it is missing).
func claudeBin(t *testing.T) string { return testsupport.RequireCLI(t, "claude") }

// gitRepo makes a temp git repository with a committer identity.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Test"},
		{"config", "user.email", "test@example.com"},
		{"config", "commit.gpgsign", "false"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// claudeCmd builds a claude command isolated from any user configuration.
func claudeCmd(ctx context.Context, t *testing.T, s *Server, dir string, args ...string) *exec.Cmd {
	t.Helper()
	bin := claudeBin(t)
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + s.URL(),
		"ANTHROPIC_API_KEY=test-key",
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
		"GIT_CONFIG_NOSYSTEM=1",
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

type line struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Message struct {
		Content []struct {
			Type  string         `json:"type"`
			Text  string         `json:"text"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"content"`
	} `json:"message"`
	Result            string `json:"result"`
	IsError           bool   `json:"is_error"`
	PermissionDenials []any  `json:"permission_denials"`
	raw               string
}

func parseLines(t *testing.T, out []byte) []line {
	t.Helper()
	var ls []line
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("bad stream-json line %q: %v", l, err)
		}
		x.raw = l
		ls = append(ls, x)
	}
	return ls
}

func assistantText(ls []line) []string {
	var out []string
	for _, l := range ls {
		if l.Type != "assistant" {
			continue
		}
		for _, c := range l.Message.Content {
			if c.Type == "text" {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

func TestOneShot(t *testing.T) {
	s := New(t, Script{Rules: []Rule{
		{Name: "greet", Match: LastUserContains("hi"), Reply: Static(Text("Hello from the fake API"))},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	repo := gitRepo(t)
	cmd := claudeCmd(ctx, t, s, repo, "-p", "hi", "--output-format", "stream-json", "--verbose",
		"--permission-mode", "dontAsk")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("claude -p took %v", time.Since(start))
	if err != nil {
		t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	ls := parseLines(t, out)
	if got := assistantText(ls); len(got) != 1 || got[0] != "Hello from the fake API" {
		t.Errorf("assistant text = %q, want the scripted text", got)
	}
	last := ls[len(ls)-1]
	if last.Type != "result" || last.IsError || last.Result != "Hello from the fake API" {
		t.Errorf("last line = %s", last.raw)
	}
	main := s.MainRequests()
	if len(main) != 1 {
		t.Fatalf("main requests = %d, want 1", len(main))
	}
	r := main[0]
	if !r.Conv.Stream || r.InputTokens <= 0 || r.Header.Get("X-Api-Key") != "REDACTED" {
		t.Errorf("request: stream=%v tokens=%d key=%q", r.Conv.Stream, r.InputTokens, r.Header.Get("X-Api-Key"))
	}
	logRequests(t, s)
}

func logRequests(t *testing.T, s *Server) {
	for i, r := range s.Requests() {
		desc := ""
		if r.Conv != nil {
			desc = "model=" + r.Conv.Model + " msgs=" + itoa(len(r.Conv.Messages)) + " tools=" + itoa(len(r.Conv.Tools)) + " shape=" + shape(r.Conv)
		}
		t.Logf("request %d: %s %s side=%v rule=%q tokens=%d %s", i, r.Method, r.Path, r.Side, r.Rule, r.InputTokens, desc)
	}
	if u := s.UnknownPaths(); len(u) > 0 {
		t.Logf("unknown paths: %v", u)
	}
}

// session drives a live stream-json claude process.
type session struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan line
	cmd   *exec.Cmd
}

func (ss *session) send(text string) {
	ss.t.Helper()
	msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := ss.stdin.Write(append(msg, '\n')); err != nil {
		ss.t.Fatalf("write stdin: %v", err)
	}
}

// untilResult collects lines up to and including the next result line.
func (ss *session) untilResult(timeout time.Duration) []line {
	ss.t.Helper()
	var got []line
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-ss.lines:
			if !ok {
				ss.t.Fatalf("claude stdout closed before result; lines so far: %d", len(got))
			}
			got = append(got, l)
			if l.Type == "result" {
				return got
			}
		case <-deadline:
			ss.t.Fatalf("no result line within %v; lines so far: %d", timeout, len(got))
		}
	}
}

func TestLiveSession(t *testing.T) {
	repo := gitRepo(t)
	file := filepath.Join(repo, "hello.txt")
	var rules []Rule
	rules = append(rules, Steps("task", "Do task 1",
		Write(file, "hello, world\n"),
		Bash("git add hello.txt && git commit -q -m 'feat: add hello.txt'"),
		Text("PROGRESS: Task 1/1 complete: hello.txt written and committed"),
	)...)
	rules = append(rules, Steps("followup", "What did you commit?",
		Text("I committed hello.txt."),
	)...)
	s := New(t, Script{Rules: rules})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := claudeCmd(ctx, t, s, repo, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Write,Bash")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ss := &session{t: t, stdin: stdin, lines: make(chan line, 100), cmd: cmd}
	go func() {
		defer close(ss.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			l.raw = sc.Text()
			ss.lines <- l
		}
	}()
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
			logRequests(t, s)
		}
	}()

	// Turn 1: Write, Bash (git commit), PROGRESS text.
	ss.send("Do task 1 of the plan.")
	turn1 := ss.untilResult(30 * time.Second)
	t.Logf("turn 1 took %v", time.Since(start))
	res := turn1[len(turn1)-1]
	if res.IsError || !strings.HasPrefix(res.Result, "PROGRESS: Task 1/1 complete:") || len(res.PermissionDenials) != 0 {
		t.Fatalf("turn 1 result = %s", res.raw)
	}
	var tools []string
	for _, l := range turn1 {
		if l.Type == "assistant" {
			for _, c := range l.Message.Content {
				if c.Type == "tool_use" {
					tools = append(tools, c.Name)
				}
			}
		}
	}
	if strings.Join(tools, ",") != "Write,Bash" {
		t.Errorf("tool uses = %v, want Write,Bash", tools)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello, world\n" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}
	out, err := exec.Command("git", "-C", repo, "log", "--format=%s", "--name-only").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "feat: add hello.txt") || !strings.Contains(string(out), "hello.txt") {
		t.Errorf("git log: %v\n%s", err, out)
	}

	// Turn 2: a follow-up in the same process.
	t2 := time.Now()
	ss.send("What did you commit?")
	turn2 := ss.untilResult(30 * time.Second)
	t.Logf("turn 2 took %v", time.Since(t2))
	res = turn2[len(turn2)-1]
	if res.IsError || res.Result != "I committed hello.txt." {
		t.Fatalf("turn 2 result = %s", res.raw)
	}

	// Closing stdin ends the process.
	t3 := time.Now()
	stdin.Close()
	for range ss.lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("claude exit: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("exit after stdin close took %v", time.Since(t3))

	// (c) The request log: turn 1 made 3 main requests (1, 3, 5 messages
	// of user/assistant history), turn 2 carries the whole history.
	main := s.MainRequests()
	var rulesFired []string
	for _, r := range main {
		rulesFired = append(rulesFired, r.Rule)
	}
	want := "task/0,task/1,task/2,followup/0"
	if strings.Join(rulesFired, ",") != want {
		t.Fatalf("rules fired = %v, want %s", rulesFired, want)
	}
	counts := make([]int, len(main))
	for i, r := range main {
		counts[i] = r.Conv.AssistantTurns()
	}
	t.Logf("assistant messages per main request: %v", counts)
	if counts[0] != 0 || counts[1] != 1 || counts[2] != 2 || counts[3] != 3 {
		t.Errorf("assistant messages per request = %v, want [0 1 2 3]", counts)
	}
	last := main[3].Conv
	if last.UserPrompts() != 2 {
		t.Errorf("turn 2 request carries %d user prompts, want 2", last.UserPrompts())
	}
	if !strings.Contains(last.Messages[0].Text(), "Do task 1") {
		t.Errorf("turn 2 request does not start with the first prompt")
	}
	if main[3].InputTokens <= main[0].InputTokens {
		t.Errorf("input tokens did not grow: %d then %d", main[0].InputTokens, main[3].InputTokens)
	}
	// tool_result round trip: request 2 carries the Write result, request 3 the Bash result.
	for i, name := range []string{"Write", "Bash"} {
		trs := main[i+1].Conv.LastToolResults()
		if len(trs) != 1 || trs[0].IsError {
			t.Errorf("%s tool_result = %+v", name, trs)
		} else {
			t.Logf("%s tool_result: %q", name, trs[0].Text)
		}
	}
	logRequests(t, s)
}

// shape renders the roles and block types of a conversation, e.g.
// "user[text,text] system[text] assistant[tool_use] user[tool_result]".
func shape(c *Conversation) string {
	var parts []string
	for _, m := range c.Messages {
		var ts []string
		for _, b := range m.Content {
			ts = append(ts, b.Type)
		}
		parts = append(parts, m.Role+"["+strings.Join(ts, ",")+"]")
	}
	return strings.Join(parts, " ")
}
