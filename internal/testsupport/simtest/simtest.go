package simtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/protocol/hivereport"
	"github.com/hivectl/hive/internal/sim"
)

// childEnv marks the test binary started as the sim child process.
const childEnv = "HIVE_SIM_TEST_CHILD"

// RunChild runs the sim (sim.Main) and exits when this process is the
// child Start started; a package whose tests start sims calls it first
// thing in TestMain.
func RunChild() {
	if os.Getenv(childEnv) == "1" {
		os.Exit(sim.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// WaitLimit is how long the helpers wait for the sim's lines and exit.
const WaitLimit = 30 * time.Second

// Proc is a running sim child.
type Proc struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser      // the sim's stdin: close it to end the session
	Lines chan map[string]any // the JSON lines the sim printed, closed at EOF
	Done  chan struct{}       // closed when the process exited
	Code  int                 // the exit code, once Done is closed

	t      *testing.T
	mu     sync.Mutex
	junk   int
	stderr bytes.Buffer
}

// Start starts the sim in dir with extra environment entries.
func Start(t *testing.T, dir string, env ...string) *Proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	cmd.Dir = dir
	cmd.Env = append(CleanEnv(), append([]string{childEnv + "=1"}, env...)...)
	p := &Proc{t: t, Cmd: cmd, Lines: make(chan map[string]any, 1024), Done: make(chan struct{})}
	cmd.Stderr = &syncWriter{mu: &p.mu, w: &p.stderr}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A plain pipe rather than cmd.StdoutPipe: Wait closes a StdoutPipe as
	// soon as the process exits, dropping output the reader has not read
	// yet, and the goroutine below calls Wait while the reader still reads.
	// This pipe's read end is ours; the reader closes it at EOF.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdout.Close()
		t.Fatal(err)
	}
	p.Stdin = stdin
	go func() {
		defer close(p.Lines)
		defer stdout.Close()
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var m map[string]any
				if json.Unmarshal(line, &m) != nil {
					p.mu.Lock()
					p.junk++
					p.mu.Unlock()
				} else {
					p.Lines <- m
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			p.Code = ee.ExitCode()
		default:
			p.Code = -100
		}
		close(p.Done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.Done:
		default:
			_ = cmd.Process.Kill()
			<-p.Done
		}
	})
	return p
}

// CleanEnv drops variables that would point git or the sim elsewhere.
func CleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "HIVE_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// Send writes a user message with text to the sim's stdin.
func (p *Proc) Send(text string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := p.Stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// Turn reads lines until the next result line and returns the assistant
// texts of the turn and the result. It fails the test if the process ends
// first.
func (p *Proc) Turn() ([]string, map[string]any) {
	p.t.Helper()
	var texts []string
	timeout := time.After(WaitLimit)
	for {
		select {
		case m, ok := <-p.Lines:
			if !ok {
				p.t.Fatalf("sim ended before a result line; texts %q; stderr:\n%s", texts, p.ErrText())
			}
			switch m["type"] {
			case "assistant":
				msg, _ := m["message"].(map[string]any)
				blocks, _ := msg["content"].([]any)
				for _, b := range blocks {
					if bm, _ := b.(map[string]any); bm["type"] == "text" {
						texts = append(texts, bm["text"].(string))
					}
				}
			case "result":
				return texts, m
			}
		case <-timeout:
			p.t.Fatalf("no result line within %v; texts %q; stderr:\n%s", WaitLimit, texts, p.ErrText())
		}
	}
}

// Drain reads the remaining output until the process closes stdout and
// returns the assistant texts.
func (p *Proc) Drain() []string {
	p.t.Helper()
	var texts []string
	timeout := time.After(WaitLimit)
	for {
		select {
		case m, ok := <-p.Lines:
			if !ok {
				return texts
			}
			if m["type"] == "assistant" {
				msg, _ := m["message"].(map[string]any)
				blocks, _ := msg["content"].([]any)
				for _, b := range blocks {
					if bm, _ := b.(map[string]any); bm["type"] == "text" {
						texts = append(texts, bm["text"].(string))
					}
				}
			}
		case <-timeout:
			p.t.Fatalf("output did not end within %v; stderr:\n%s", WaitLimit, p.ErrText())
		}
	}
}

// Wait returns the exit code, failing after limit.
func (p *Proc) Wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.Done:
		return p.Code
	case <-time.After(limit):
		p.t.Fatalf("sim did not exit within %v; stderr:\n%s", limit, p.ErrText())
		return 0
	}
}

// ErrText is what the sim wrote to stderr so far.
func (p *Proc) ErrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// JunkLines counts the lines the sim printed that are not JSON.
func (p *Proc) JunkLines() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.junk
}

// ---- repositories and plans ----

// Git runs git in dir (with a clean environment) and returns its trimmed
// output, failing the test if it fails.
func Git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = CleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// NewRepo makes a git repository with one commit.
func NewRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "user.name", "Test")
	Git(t, dir, "config", "user.email", "test@example.com")
	WriteFile(t, dir, "README.md", "# test\n")
	Git(t, dir, "add", "README.md")
	Git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// WriteFile writes content to rel under dir, making its folders.
func WriteFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Task is a fixture task: its XML type and files.
type Task struct {
	Type  string
	Name  string
	Files []string
	Extra string // extra XML inside <task>
}

// PhaseDir is the phase folder WritePlan writes plans in.
const PhaseDir = ".planning/phases/01-core"

// WritePlan writes a GSD-looking plan and returns its repository path.
func WritePlan(t *testing.T, dir, id string, tasks ...Task) string {
	t.Helper()
	var files []string
	var body strings.Builder
	autonomous := true
	for i, tk := range tasks {
		typ := orElse(tk.Type, "auto")
		if strings.HasPrefix(typ, "checkpoint:") {
			autonomous = false
		}
		files = append(files, tk.Files...)
		name := orElse(tk.Name, fmt.Sprintf("Task %d: step %d of %s", i+1, i+1, id))
		fmt.Fprintf(&body, "<task type=%q>\n  <name>%s</name>\n", typ, name)
		if len(tk.Files) > 0 {
			fmt.Fprintf(&body, "  <files>%s</files>\n", strings.Join(tk.Files, ", "))
		}
		fmt.Fprintf(&body, "  <action>Implement step %d.</action>\n  <verify><automated>go test ./...</automated></verify>\n%s  <done>Step %d works.</done>\n</task>\n\n", i+1, tk.Extra, i+1)
	}
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	_, num, _ := strings.Cut(id, "-")
	text := fmt.Sprintf(`---
phase: 01-core
plan: %s
type: execute
wave: 1
depends_on: []
files_modified: [%s]
autonomous: %t
requirements: [CORE-01]
---

<objective>
Plan %s of the test phase.

Purpose: exercise the sim.
</objective>

<context>
@.planning/PROJECT.md
</context>

<tasks>

%s</tasks>

<verification>
go test ./...
</verification>
`, num, strings.Join(quoted, ", "), autonomous, id, body.String())
	rel := PhaseDir + "/" + id + "-PLAN.md"
	WriteFile(t, dir, rel, text)
	Git(t, dir, "add", rel)
	Git(t, dir, "commit", "-q", "-m", "docs: plan "+id)
	return rel
}

// TeamPrompt is the executor prompt of seed 000 §2.2 as the runner sends it.
func TeamPrompt(planPath string) string {
	id := strings.TrimSuffix(filepath.Base(planPath), "-PLAN.md")
	return fmt.Sprintf(`<objective>
Execute plan %[1]s of phase 01-core.
You are a team member. Communicate via SendMessage.
</objective>

<team_protocol>
You are executor-%[1]s on team hive-execute-01-core.
</team_protocol>

<files_to_read>
Read these files at execution start using the Read tool:
- Plan: %[2]s
- State: .planning/STATE.md
- Config: .planning/config.json (if exists)
</files_to_read>
`, id, planPath)
}

// StandalonePrompt is seed 002's subagent prompt.
func StandalonePrompt(planPath string) string {
	return fmt.Sprintf(`<objective>
Execute plan of phase 01-core.

Commit each task atomically. Create SUMMARY.md. Update STATE.md.
</objective>

<context>
Plan: @%s
Project state: @.planning/STATE.md
</context>
`, planPath)
}

// TaskTrailers counts the Hive-Task trailers of each task of plan id in the
// repository's history.
func TaskTrailers(t *testing.T, dir, id string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, line := range strings.Split(Git(t, dir, "log", "--all", "--format=%B"), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Task: "+id+"/"); ok {
			counts[v]++
		}
	}
	return counts
}

// Contains reports whether any of texts contains sub.
func Contains(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Find is the first of texts that begins with prefix, "" if none.
func Find(texts []string, prefix string) string {
	for _, s := range texts {
		if strings.HasPrefix(s, prefix) {
			return s
		}
	}
	return ""
}

func orElse(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ThreeTasks is a plan's three tasks, of several kinds of files under
// prefix; the second is a tdd task.
func ThreeTasks(prefix string) []Task {
	return []Task{
		{Files: []string{prefix + "/store.go", prefix + "/README.md"}},
		{Type: "tdd", Files: []string{prefix + "/store_test.go", prefix + "/config.json"}},
		{Files: []string{prefix + "/app.ts", prefix + "/tool.py", prefix + "/notes.txt"}},
	}
}

// RunToEnd sends prompt, reads one turn, closes stdin and returns the texts
// and the exit code.
func RunToEnd(t *testing.T, dir, prompt string, env ...string) ([]string, int) {
	t.Helper()
	p := Start(t, dir, env...)
	p.Send(prompt)
	texts, _ := p.Turn()
	p.Stdin.Close()
	return append(texts, p.Drain()...), p.Wait(WaitLimit)
}

// Until reads lines until an assistant text beginning with prefix and
// returns the texts read.
func (p *Proc) Until(prefix string) []string {
	p.t.Helper()
	var texts []string
	timeout := time.After(WaitLimit)
	for {
		select {
		case m, ok := <-p.Lines:
			if !ok {
				p.t.Fatalf("sim ended before %q; texts %q; stderr:\n%s", prefix, texts, p.ErrText())
			}
			if m["type"] != "assistant" {
				continue
			}
			for _, b := range m["message"].(map[string]any)["content"].([]any) {
				if bm := b.(map[string]any); bm["type"] == "text" {
					texts = append(texts, bm["text"].(string))
					if strings.HasPrefix(bm["text"].(string), prefix) {
						return texts
					}
				}
			}
		case <-timeout:
			p.t.Fatalf("no %q within %v; texts %q", prefix, WaitLimit, texts)
		}
	}
}

// TurnLines reads every line up to and including the next result line.
func (p *Proc) TurnLines() []map[string]any {
	p.t.Helper()
	var out []map[string]any
	timeout := time.After(WaitLimit)
	for {
		select {
		case m, ok := <-p.Lines:
			if !ok {
				p.t.Fatalf("sim ended before a result line; stderr:\n%s", p.ErrText())
			}
			out = append(out, m)
			if m["type"] == "result" {
				return out
			}
		case <-timeout:
			p.t.Fatalf("no result line within %v; stderr:\n%s", WaitLimit, p.ErrText())
		}
	}
}

// Report is the HIVE_REPORT among texts, as hive reads it.
func Report(t *testing.T, texts []string) *hivereport.Report {
	t.Helper()
	for _, s := range texts {
		for _, m := range protocol.Parse(s) {
			if m.Report != nil {
				if m.Report.Err != "" {
					t.Fatalf("unreadable report: %s\n%s", m.Report.Err, s)
				}
				return m.Report
			}
		}
	}
	t.Fatalf("no HIVE_REPORT in %q", texts)
	return nil
}
