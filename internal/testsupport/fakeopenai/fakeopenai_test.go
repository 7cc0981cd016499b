package fakeopenai_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
)

// gitRepo makes an empty git repository with an identity.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.email", "test@example.com"},
		{"config", "user.name", "Test"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

type event map[string]any

func (e event) item() map[string]any { m, _ := e["item"].(map[string]any); return m }

// runCodex runs the real codex with args against s and returns its JSONL
// events; it fails the test when codex exits non-zero.
func runCodex(t *testing.T, s *fakeopenai.Server, dir, home string, args ...string) []event {
	t.Helper()
	evs, err := runCodexErr(t, s, dir, home, args...)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// runCodexErr is runCodex returning codex's exit error (with its output) instead.
func runCodexErr(t *testing.T, s *fakeopenai.Server, dir, home string, args ...string) ([]event, error) {
	t.Helper()
	bin := fakeopenai.CodexBinary(t)
	cmd := s.Command(bin, dir, home, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	t.Logf("codex %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		err = fmt.Errorf("codex %v: %w\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	var evs []event
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("codex printed a non-JSON line %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	return evs, err
}

func execArgs(prompt string) []string {
	return []string{"exec", "--json", "-m", fakeopenai.Model,
		"--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", prompt}
}

func types(evs []event) []string {
	var out []string
	for _, e := range evs {
		s, _ := e["type"].(string)
		if it := e.item(); it != nil {
			s += "/" + it["type"].(string)
		}
		out = append(out, s)
	}
	return out
}

func agentMessages(evs []event) []string {
	var out []string
	for _, e := range evs {
		if it := e.item(); e["type"] == "item.completed" && it["type"] == "agent_message" {
			out = append(out, it["text"].(string))
		}
	}
	return out
}

func TestCodexSaysHi(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Script{
		{UserText: "say hi", Reply: fakeopenai.Say("hi from the fake model")},
	})
	evs := runCodex(t, s, gitRepo(t), t.TempDir(), execArgs("say hi")...)

	want := []string{"thread.started", "turn.started", "item.completed/agent_message", "turn.completed"}
	if got := types(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events = %v, want %v", got, want)
	}
	if id, _ := evs[0]["thread_id"].(string); id == "" {
		t.Errorf("thread.started without thread_id: %v", evs[0])
	}
	if got := agentMessages(evs); len(got) != 1 || got[0] != "hi from the fake model" {
		t.Errorf("agent messages = %q", got)
	}
	usage, _ := evs[len(evs)-1]["usage"].(map[string]any)
	if usage == nil || usage["input_tokens"].(float64) <= 0 || usage["output_tokens"].(float64) <= 0 {
		t.Errorf("turn.completed usage = %v", usage)
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1: %+v", len(reqs), reqs)
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/responses" || r.Model != fakeopenai.Model {
		t.Errorf("request = %s %s model %q", r.Method, r.Path, r.Model)
	}
	if r.Body["stream"] != true {
		t.Errorf("request not streaming: %v", r.Body["stream"])
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("Authorization header recorded")
	}
	if !strings.HasPrefix(r.Header.Get("User-Agent"), "codex_exec/") {
		t.Errorf("User-Agent = %q", r.Header.Get("User-Agent"))
	}
	if r.LastUserText != "say hi" || r.InputTokens <= 0 {
		t.Errorf("LastUserText %q, InputTokens %d", r.LastUserText, r.InputTokens)
	}
	if !contains(r.Tools, fakeopenai.ShellTool) {
		t.Errorf("tools %v lack %s", r.Tools, fakeopenai.ShellTool)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestCodexRunsShellAndCommits(t *testing.T) {
	const prompt = "Execute plan 01-01"
	commit := fakeopenai.Run(`printf 'x\n' > x.txt && git add x.txt && git commit -q -m "feat(01-01): x" && echo committed`)
	commit.Usage = &fakeopenai.Usage{InputTokens: 1000, CachedTokens: 100, OutputTokens: 10}
	report := fakeopenai.Say("PROGRESS: Task 1/1 complete: x.txt committed")
	report.Usage = &fakeopenai.Usage{InputTokens: 2000, CachedTokens: 500, OutputTokens: 20, ReasoningTokens: 5}
	s := fakeopenai.New(t, fakeopenai.Script{
		{Name: "commit", UserText: prompt, TurnToolOutputs: 0, Reply: commit},
		{Name: "report", UserText: prompt, TurnToolOutputs: 1, Reply: report},
	})
	repo := gitRepo(t)
	evs := runCodex(t, s, repo, t.TempDir(), execArgs(prompt)...)

	var cmdDone map[string]any
	for _, e := range evs {
		if it := e.item(); e["type"] == "item.completed" && it["type"] == "command_execution" {
			cmdDone = it
		}
	}
	if cmdDone == nil {
		t.Fatalf("no command_execution item in %v", types(evs))
	}
	if cmdDone["exit_code"] != float64(0) || !strings.Contains(cmdDone["aggregated_output"].(string), "committed") {
		t.Errorf("command_execution = %v", cmdDone)
	}
	if got := agentMessages(evs); len(got) != 1 || got[0] != "PROGRESS: Task 1/1 complete: x.txt committed" {
		t.Errorf("agent messages = %q", got)
	}
	// turn.completed sums the usage of the turn's responses.
	wantUsage := map[string]any{"input_tokens": 3000.0, "cached_input_tokens": 600.0,
		"cache_write_input_tokens": 0.0, "output_tokens": 30.0, "reasoning_output_tokens": 5.0}
	if got := evs[len(evs)-1]["usage"]; fmt.Sprint(got) != fmt.Sprint(wantUsage) {
		t.Errorf("turn.completed usage = %v, want %v", got, wantUsage)
	}
	out, err := exec.Command("git", "-C", repo, "log", "--format=%s").Output()
	if err != nil || strings.TrimSpace(string(out)) != "feat(01-01): x" {
		t.Errorf("git log = %q, %v", out, err)
	}

	reqs := s.ResponsesRequests()
	if len(reqs) != 2 || reqs[0].Rule != "commit" || reqs[1].Rule != "report" {
		t.Fatalf("requests answered by %v", rules(reqs))
	}
	r := reqs[1]
	calls := r.ItemsOfType("function_call")
	if len(calls) != 1 || calls[0]["name"] != fakeopenai.ShellTool {
		t.Errorf("second request function_call items = %v", calls)
	}
	if out := r.LastToolOutput(); !strings.Contains(out, "Process exited with code 0") || !strings.Contains(out, "committed") {
		t.Errorf("tool output = %q", out)
	}
	if r.InputTokens <= reqs[0].InputTokens {
		t.Errorf("input estimate did not grow: %d then %d", reqs[0].InputTokens, r.InputTokens)
	}
}

func rules(reqs []fakeopenai.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Rule)
	}
	return out
}

func TestCodexResume(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Script{
		{UserText: "say hi", Reply: fakeopenai.Say("hi, first turn")},
		{UserText: "next", Reply: fakeopenai.Say("second turn")},
	})
	repo, home := gitRepo(t), t.TempDir()
	first := runCodex(t, s, repo, home, execArgs("say hi")...)
	thread, _ := first[0]["thread_id"].(string)
	if thread == "" {
		t.Fatalf("no thread id in %v", first[0])
	}
	second := runCodex(t, s, repo, home, "exec", "resume", "--json", "-m", fakeopenai.Model,
		"--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", thread, "next")
	if got := agentMessages(second); len(got) != 1 || got[0] != "second turn" {
		t.Errorf("agent messages = %q (events %v)", got, types(second))
	}
	if id, _ := second[0]["thread_id"].(string); id != thread {
		t.Errorf("resumed thread.started id = %q, want %q", id, thread)
	}

	reqs := s.ResponsesRequests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests", len(reqs))
	}
	r := reqs[1]
	users := r.UserTexts()
	if !contains(users, "say hi") || users[len(users)-1] != "next" {
		t.Errorf("resumed request user texts = %q", users)
	}
	var sawFirstAnswer bool
	for _, it := range r.ItemsOfType("message") {
		if it["role"] == "assistant" && strings.Contains(string(mustJSON(it)), "hi, first turn") {
			sawFirstAnswer = true
		}
	}
	if !sawFirstAnswer {
		t.Errorf("resumed request lacks the first answer")
	}
	if r.Header.Get("Session-Id") != thread {
		t.Errorf("Session-Id = %q, want %q", r.Header.Get("Session-Id"), thread)
	}
	if r.InputTokens <= reqs[0].InputTokens {
		t.Errorf("resumed input estimate %d not above first %d", r.InputTokens, reqs[0].InputTokens)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestCodexAPIErrorFailsTurn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakeopenai.Reply
		want  string
	}{
		{"400", fakeopenai.Reply{Error: "boom", Status: 400}, "boom"},
		{"500", fakeopenai.Reply{Error: "overloaded", Status: 500}, "high demand"},
		{"response.failed", fakeopenai.Reply{Failed: "it failed"}, "stream disconnected before completion: it failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeopenai.New(t, fakeopenai.Script{{Reply: tc.reply}})
			evs, err := runCodexErr(t, s, gitRepo(t), t.TempDir(), execArgs("say hi")...)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("want exit status 1, got %v", err)
			}
			want := []string{"thread.started", "turn.started", "error", "turn.failed"}
			if got := types(evs); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("events = %v, want %v", got, want)
			}
			msg := evs[3]["error"].(map[string]any)["message"].(string)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("turn.failed message %q lacks %q", msg, tc.want)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("%d requests, want 1 (retries are off)", n)
			}
		})
	}
}

// TestStream checks the event stream without codex.
func TestStream(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Script{
		{UserText: "go", Reply: fakeopenai.Reply{Text: "running", Calls: []fakeopenai.Call{fakeopenai.Shell("true")},
			Usage: &fakeopenai.Usage{InputTokens: 7, OutputTokens: 3}}},
	})
	body := `{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}],"tools":[{"type":"function","name":"exec_command"}]}`
	req, _ := http.NewRequest("POST", s.URL()+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	var names []string
	var last map[string]any
	for _, block := range strings.Split(strings.TrimSpace(string(raw)), "\n\n") {
		lines := strings.SplitN(block, "\n", 2)
		name := strings.TrimPrefix(lines[0], "event: ")
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &last); err != nil || last["type"] != name {
			t.Fatalf("bad block %q: %v", block, err)
		}
		names = append(names, name)
	}
	want := "response.created response.in_progress " +
		"response.output_item.added response.content_part.added response.output_text.delta " +
		"response.output_text.done response.content_part.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta " +
		"response.function_call_arguments.done response.output_item.done response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	r := last["response"].(map[string]any)
	out := r["output"].([]any)
	fc := out[1].(map[string]any)
	if fc["type"] != "function_call" || fc["name"] != "exec_command" || fc["arguments"] != `{"cmd":"true"}` || fc["call_id"] == "" {
		t.Errorf("function_call item = %v", fc)
	}
	if u := r["usage"].(map[string]any); u["input_tokens"] != float64(7) || u["total_tokens"] != float64(10) {
		t.Errorf("usage = %v", u)
	}
	rec := s.Requests()
	if len(rec) != 1 || rec[0].Header.Get("Authorization") != "" || rec[0].LastUserText != "go" ||
		rec[0].Tools[0] != "exec_command" || rec[0].InputTokens == 0 {
		t.Errorf("recorded %+v", rec)
	}
}

// recorder is a testing.TB that keeps Errorf calls instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestUnmatchedAndUnknownPath(t *testing.T) {
	rec := &recorder{TB: t}
	s := fakeopenai.New(rec, fakeopenai.Script{{UserText: "only this", Times: 1, Reply: fakeopenai.Say("x")}})
	post := func(path, text string) int {
		body := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}]}`
		resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post("/v1/responses", "only this"); st != 200 {
		t.Errorf("first: status %d", st)
	}
	if st := post("/v1/responses", "only this"); st != 400 { // Times used up
		t.Errorf("second: status %d", st)
	}
	if st := post("/v1/models", ""); st != 404 {
		t.Errorf("unknown path: status %d", st)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "no rule matches request 2") {
		t.Errorf("errors = %q", rec.errs)
	}
	if got := s.Requests(); len(got) != 3 || got[2].Path != "/v1/models" || got[0].Rule != "#0" || got[1].Rule != "" {
		t.Errorf("requests = %+v", got)
	}
}
