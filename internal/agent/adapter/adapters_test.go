package adapter

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/work"
)

func TestClaudeArgv(t *testing.T) {
	live := Claude{Model: "sonnet", Live: true}.Argv("/bin/claude", "PROMPT")
	want := []string{"/bin/claude", "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "sonnet",
		"--permission-mode", "acceptEdits", "--allowedTools", strings.Join(DefaultAllowedTools, ","),
		"--permission-prompt-tool", "stdio"}
	if !reflect.DeepEqual(live, want) {
		t.Errorf("live argv\n got %q\nwant %q", live, want)
	}
	if quiet := (Claude{Live: true, NoPermissionPrompt: true}).Argv("claude", ""); contains(quiet, "--permission-prompt-tool") {
		t.Errorf("NoPermissionPrompt argv %q still asks for stdio permission prompts", quiet)
	}
	one := Claude{PermissionMode: "dontAsk", AllowedTools: []string{"Bash"}}.Argv("claude", "do it")
	if one[len(one)-2] != "--" || one[len(one)-1] != "do it" || contains(one, "--input-format") || contains(one, "--permission-prompt-tool") || !contains(one, "dontAsk") {
		t.Errorf("one-shot argv %q: the prompt goes last after --, no stream input, the configured mode", one)
	}
}

func TestCodexArgv(t *testing.T) {
	got := Codex{Model: "gpt-5", Args: []string{"-c", "model_provider=fake"}}.Argv("codex", "PROMPT")
	want := []string{"codex", "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", "gpt-5", "-c", "model_provider=fake", "PROMPT"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCodexOutputs(t *testing.T) {
	tests := []struct {
		line string
		want []agent.Output
		err  bool
	}{
		{`{"type":"thread.started","thread_id":"t1"}`, nil, false},
		{`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"PROGRESS: Task 1/2 complete: x"}}`, []agent.Output{{Kind: agent.OutText, Text: "PROGRESS: Task 1/2 complete: x"}}, false},
		{`{"type":"item.completed","item":{"type":"command_execution","command":"ls"}}`, nil, false},
		{`{"type":"item.started","item":{"type":"command_execution","command":"go test ./..."}}`, []agent.Output{{Kind: agent.OutToolCall, Tool: "shell", Input: `{"command":"go test ./..."}`}}, false},
		{`{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":7}}`, []agent.Output{{Kind: agent.OutResult, Usage: agent.Usage{InputTokens: 120, OutputTokens: 7}, Context: 120}}, false},
		// cached tokens are inside codex's input_tokens; hive keeps them apart
		{`{"type":"turn.completed","usage":{"input_tokens":3000,"cached_input_tokens":600,"output_tokens":7}}`, []agent.Output{{Kind: agent.OutResult, Usage: agent.Usage{InputTokens: 2400, CacheReadInputTokens: 600, OutputTokens: 7}, Context: 3000}}, false},
		{`{"type":"turn.failed","error":{"message":"model overloaded"}}`, []agent.Output{{Kind: agent.OutResult, IsError: true, Text: "model overloaded", Limit: &agent.Limit{Kind: work.LimitOverload}}}, false},
		{`{"type":"error","message":"stream disconnected"}`, []agent.Output{{Kind: agent.OutResult, IsError: true, Text: "stream disconnected"}}, false},
		{`not json`, nil, true},
	}
	for _, tt := range tests {
		got, err := codexOutputs([]byte(tt.line))
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("codexOutputs(%s) = %+v, %v; want %+v (error %v)", tt.line, got, err, tt.want, tt.err)
		}
	}
}

// The exec agent: the prompt on stdin, PROGRESS lines at once, the whole
// output as one message at the end (a PLAN COMPLETE block spans lines).
func TestCommandAgent(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nread -r line\necho \"got: $line\"\necho 'PROGRESS: Task 1/1 complete: x'\nprintf 'PLAN COMPLETE\\n\\n**Plan:** 01-01\\n'\n"), 0o755)
	var mu sync.Mutex
	var outs []agent.Output
	s, err := Command{CLI: "exec", Path: script}.Start(context.Background(), agent.Spec{Plan: "01-01", Attempt: 1, Dir: dir, Prompt: "hello\n", LogPath: filepath.Join(dir, "log")}, func(o agent.Output) {
		mu.Lock()
		outs = append(outs, o)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outs) != 4 || outs[0].Text != "PROGRESS: Task 1/1 complete: x" || !strings.Contains(outs[1].Text, "got: hello") ||
		!strings.Contains(outs[1].Text, "PLAN COMPLETE") || outs[2].Kind != agent.OutResult || outs[3].Kind != agent.OutExit || outs[3].ExitCode != 0 {
		t.Fatalf("outputs: %+v", outs)
	}
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HIVE_TOOLS", "")
	_, err := Claude{}.Start(context.Background(), agent.Spec{Plan: "01-01"}, func(agent.Output) {})
	if err == nil || !strings.Contains(err.Error(), "npm install -g @anthropic-ai/claude-code") {
		t.Fatalf("err = %v, want the install command", err)
	}
	_, err = Codex{Path: "/nonexistent/codex"}.Start(context.Background(), agent.Spec{Plan: "01-01"}, func(agent.Output) {})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/codex") {
		t.Fatalf("err = %v, want the configured path named", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The control_request line measured with Claude Code 2.1.330.
// TestClaudeToolCallsAndModel: the loop guard sees every tool_use block, and
// a turn's price needs the model that did it (modelUsage: the one with the
// most output, not a side model) and the cache counts.
func TestClaudeToolCallsAndModel(t *testing.T) {
	outs, err := (&turnMeter{}).outputs([]byte(`{"type":"assistant","message":{"model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"Read"}]}}`))
	want := []agent.Output{{Kind: agent.OutText, Text: "hi"}, {Kind: agent.OutToolCall, Tool: "Bash", Input: `{"command":"ls"}`}, {Kind: agent.OutToolCall, Tool: "Read", Input: "{}"}}
	if err != nil || !reflect.DeepEqual(outs, want) {
		t.Fatalf("assistant: %+v, %v\nwant %+v", outs, err, want)
	}
	outs, err = (&turnMeter{}).outputs([]byte(`{"type":"result","subtype":"success","result":"ok","total_cost_usd":0.5,"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":400},"modelUsage":{"claude-haiku-4-5":{"outputTokens":20,"costUSD":0.001},"claude-opus-5-5":{"outputTokens":400,"costUSD":0.4,"contextWindow":1000000}}}`))
	// No request said its size: the turn's input is the context's.
	want = []agent.Output{{Kind: agent.OutResult, Text: "ok", CostUSD: 0.5, Model: "claude-opus-5-5", Context: 32010, Window: 1000000,
		Usage: agent.Usage{InputTokens: 10, OutputTokens: 400, CacheCreationInputTokens: 2000, CacheReadInputTokens: 30000}}}
	if err != nil || !reflect.DeepEqual(outs, want) {
		t.Fatalf("result: %+v, %v\nwant %+v", outs, err, want)
	}
}

// TestTurnMeter: the spend of a turn arrives request by request (the lines
// as Claude Code 2.1.330 prints them: one assistant line per block, each
// with the usage of its message's start), and the turn's outputs add up to
// what the result says.
func TestTurnMeter(t *testing.T) {
	lines := []string{
		`{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/r/a.txt","content":"aaaa"}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":4405,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`,
		`{"type":"assistant","message":{"id":"msg_2","model":"claude-opus-5-5","content":[{"type":"text","text":"` + strings.Repeat("x", 400) + `"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":52,"cache_read_input_tokens":4405,"output_tokens":1}}}`,
		`{"type":"assistant","message":{"id":"msg_2","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git commit"}}],"usage":{"input_tokens":1,"cache_creation_input_tokens":52,"cache_read_input_tokens":4405,"output_tokens":1}}}`,
		`{"type":"result","subtype":"success","result":"done","total_cost_usd":0.9,"usage":{"input_tokens":3,"cache_creation_input_tokens":4457,"cache_read_input_tokens":4405,"output_tokens":40000},"modelUsage":{"claude-opus-5-5":{"outputTokens":40000}}}`,
	}
	m := &turnMeter{}
	var spends []agent.Usage
	var sum agent.Usage
	var result *agent.Output
	for _, l := range lines {
		outs, err := m.outputs([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			switch o.Kind {
			case agent.OutSpend:
				if o.Model != "claude-opus-5-5" {
					t.Errorf("spend without the model: %+v", o)
				}
				spends = append(spends, o.Usage)
				sum = plus(sum, o.Usage)
			case agent.OutResult:
				result = &o
				sum = plus(sum, o.Usage)
			}
		}
	}
	// Three lines, two messages: each message's input and cache tokens once.
	want := []agent.Usage{
		{InputTokens: 2, CacheCreationInputTokens: 4405, OutputTokens: int64(len("Write")+len(`{"file_path":"/r/a.txt","content":"aaaa"}`)) / 4},
		{InputTokens: 1, CacheCreationInputTokens: 52, CacheReadInputTokens: 4405, OutputTokens: 100},
		{OutputTokens: int64(len("Bash")+len(`{"command":"git commit"}`)) / 4},
	}
	if !reflect.DeepEqual(spends, want) {
		t.Errorf("spends %+v\nwant %+v", spends, want)
	}
	if result == nil || sum != (agent.Usage{InputTokens: 3, OutputTokens: 40000, CacheCreationInputTokens: 4457, CacheReadInputTokens: 4405}) {
		t.Errorf("the turn adds up to %+v (result %+v), want the result's usage", sum, result)
	}
	// A turn cut short whose result reports less than was seen takes
	// nothing back.
	m.outputs([]byte(lines[0]))
	outs, _ := m.outputs([]byte(`{"type":"result","subtype":"error_during_execution","is_error":true,"usage":{"input_tokens":0,"output_tokens":0}}`))
	if len(outs) != 1 || outs[0].Usage != (agent.Usage{}) {
		t.Errorf("an interrupted turn's result: %+v", outs)
	}
}

func TestClaudePermissionRequest(t *testing.T) {
	line := `{"type":"control_request","request_id":"d06c6e7d-4665","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"echo hi > out.txt","description":"run echo hi > out.txt"},"description":"run echo hi > out.txt","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"echo hi *"}],"behavior":"allow","destination":"localSettings"}],"blocked_path":"/tmp/x/out.txt","tool_use_id":"toolu_1"}}`
	outs, err := (&turnMeter{}).outputs([]byte(line))
	if err != nil || len(outs) != 1 {
		t.Fatalf("outputs %+v, %v; want one OutPermission", outs, err)
	}
	o := outs[0]
	if o.Kind != agent.OutPermission || o.RequestID != "d06c6e7d-4665" || o.Tool != "Bash" || o.Input != `{"command":"echo hi > out.txt","description":"run echo hi > out.txt"}` {
		t.Errorf("got %+v", o)
	}
	if got, want := string(agent.PermissionResponse("r1", true, o.Input, "")), `{"response":{"request_id":"r1","response":{"behavior":"allow","updatedInput":{"command":"echo hi > out.txt","description":"run echo hi > out.txt"}},"subtype":"success"},"type":"control_response"}`+"\n"; got != want {
		t.Errorf("allow:\n got %s\nwant %s", got, want)
	}
	if got, want := string(agent.PermissionResponse("r1", false, o.Input, "no")), `{"response":{"request_id":"r1","response":{"behavior":"deny","message":"no"},"subtype":"success"},"type":"control_response"}`+"\n"; got != want {
		t.Errorf("deny:\n got %s\nwant %s", got, want)
	}
}

// TestContextOccupancy: the context of a live session is the input and
// cache tokens of its latest API request (each request carries the whole
// conversation), kept across turns; Claude Code's compact_boundary line
// (as 2.1.330 prints it) is an output of its own and shrinks the context.
func TestContextOccupancy(t *testing.T) {
	m := &turnMeter{}
	lines := []string{
		`{"type":"assistant","message":{"id":"m1","model":"claude-opus-5-5","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"cache_read_input_tokens":40000,"cache_creation_input_tokens":2000,"output_tokens":1}}}`,
		`{"type":"assistant","message":{"id":"m2","model":"claude-opus-5-5","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":7,"cache_read_input_tokens":42000,"cache_creation_input_tokens":900,"output_tokens":1}}}`,
		`{"type":"result","subtype":"success","result":"b","usage":{"input_tokens":12,"cache_read_input_tokens":82000,"cache_creation_input_tokens":2900,"output_tokens":2},"modelUsage":{"claude-opus-5-5":{"outputTokens":2,"contextWindow":1000000}}}`,
		`{"type":"system","subtype":"compact_boundary","session_id":"s","compact_metadata":{"trigger":"auto","pre_tokens":42907,"post_tokens":6100}}`,
	}
	var got []agent.Output
	for _, l := range lines {
		outs, err := m.outputs([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			if o.Kind != agent.OutText {
				got = append(got, agent.Output{Kind: o.Kind, Text: o.Text, Context: o.Context, Window: o.Window, PreTokens: o.PreTokens})
			}
		}
	}
	want := []agent.Output{
		{Kind: agent.OutSpend, Context: 42005},
		{Kind: agent.OutSpend, Context: 42907},
		{Kind: agent.OutResult, Text: "b", Context: 42907, Window: 1000000},
		{Kind: agent.OutCompacted, Text: "auto", Context: 6100, PreTokens: 42907},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outputs\n%+v\nwant\n%+v", got, want)
	}
	if m.context != 6100 {
		t.Fatalf("context after the compaction = %d, want 6100", m.context)
	}
}
