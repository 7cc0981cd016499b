package sim

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

	"github.com/hivectl/hive/internal/testsupport"
)

// The test binary doubles as the sim child process, so the tests exercise
// real process behaviour: exit codes, stdin EOF, kills.
const childEnv = "HIVE_SIM_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(testsupport.WithTempHome(m).Run())
}

const waitLimit = 30 * time.Second

// proc is a running sim child.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	mu     sync.Mutex
	junk   int
	stderr bytes.Buffer
	done   chan struct{}
	code   int
}

// startSim starts the sim in dir with extra environment entries.
func startSim(t *testing.T, dir string, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), append([]string{childEnv + "=1"}, env...)...)
	p := &proc{t: t, cmd: cmd, lines: make(chan map[string]any, 1024), done: make(chan struct{})}
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
	p.stdin = stdin
	go func() {
		defer close(p.lines)
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
					p.lines <- m
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
			p.code = ee.ExitCode()
		default:
			p.code = -100
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// cleanEnv drops variables that would point git or the sim elsewhere.
func cleanEnv() []string {
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

func (p *proc) send(text string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// turn reads lines until the next result line and returns the assistant
// texts of the turn and the result. It fails the test if the process ends
// first.
func (p *proc) turn() ([]string, map[string]any) {
	p.t.Helper()
	var texts []string
	timeout := time.After(waitLimit)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("sim ended before a result line; texts %q; stderr:\n%s", texts, p.errText())
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
			p.t.Fatalf("no result line within %v; texts %q; stderr:\n%s", waitLimit, texts, p.errText())
		}
	}
}

// drain reads the remaining output until the process closes stdout and
// returns the assistant texts.
func (p *proc) drain() []string {
	p.t.Helper()
	var texts []string
	timeout := time.After(waitLimit)
	for {
		select {
		case m, ok := <-p.lines:
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
			p.t.Fatalf("output did not end within %v; stderr:\n%s", waitLimit, p.errText())
		}
	}
}

// wait returns the exit code, failing after limit.
func (p *proc) wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		p.t.Fatalf("sim did not exit within %v; stderr:\n%s", limit, p.errText())
		return 0
	}
}

func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proc) junkLines() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.junk
}

// ---- repositories and plans ----

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a git repository with one commit.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "config", "user.name", "Test")
	gitT(t, dir, "config", "user.email", "test@example.com")
	writeFile(t, dir, "README.md", "# test\n")
	gitT(t, dir, "add", "README.md")
	gitT(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// task is a fixture task: its XML type and files.
type task struct {
	typ   string
	name  string
	files []string
	extra string // extra XML inside <task>
}

const phaseDir = ".planning/phases/01-core"

// writePlan writes a GSD-looking plan and returns its repository path.
func writePlan(t *testing.T, dir, id string, tasks ...task) string {
	t.Helper()
	var files []string
	var body strings.Builder
	autonomous := true
	for i, tk := range tasks {
		typ := orElse(tk.typ, "auto")
		if strings.HasPrefix(typ, "checkpoint:") {
			autonomous = false
		}
		files = append(files, tk.files...)
		name := orElse(tk.name, fmt.Sprintf("Task %d: step %d of %s", i+1, i+1, id))
		fmt.Fprintf(&body, "<task type=%q>\n  <name>%s</name>\n", typ, name)
		if len(tk.files) > 0 {
			fmt.Fprintf(&body, "  <files>%s</files>\n", strings.Join(tk.files, ", "))
		}
		fmt.Fprintf(&body, "  <action>Implement step %d.</action>\n  <verify><automated>go test ./...</automated></verify>\n%s  <done>Step %d works.</done>\n</task>\n\n", i+1, tk.extra, i+1)
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
	rel := phaseDir + "/" + id + "-PLAN.md"
	writeFile(t, dir, rel, text)
	gitT(t, dir, "add", rel)
	gitT(t, dir, "commit", "-q", "-m", "docs: plan "+id)
	return rel
}

// teamPrompt is the executor prompt of seed 000 §2.2 as the runner sends it.
func teamPrompt(planPath string) string {
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

// standalonePrompt is seed 002's subagent prompt.
func standalonePrompt(planPath string) string {
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

// taskTrailers counts the Hive-Task trailers of each task of plan id in the
// repository's history.
func taskTrailers(t *testing.T, dir, id string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, line := range strings.Split(gitT(t, dir, "log", "--all", "--format=%B"), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Hive-Task: "+id+"/"); ok {
			counts[v]++
		}
	}
	return counts
}

func contains(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func find(texts []string, prefix string) string {
	for _, s := range texts {
		if strings.HasPrefix(s, prefix) {
			return s
		}
	}
	return ""
}
