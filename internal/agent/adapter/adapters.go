package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hivectl/hive/internal/agent"
)

// installHints says how to get each CLI when it is missing.
var installHints = map[string]string{
	"claude": "npm install -g @anthropic-ai/claude-code",
	"codex":  "npm install -g @openai/codex",
	"aider":  "python -m pip install aider-install && aider-install",
}

// findBinary resolves a CLI: a configured path, else the configured (or
// default) name in PATH, else the folder named by HIVE_TOOLS (where `make
// tools` installs the pinned CLIs for the tests).
func findBinary(name, configured string) (string, error) {
	if strings.ContainsRune(configured, os.PathSeparator) {
		if !isExecutable(configured) {
			return "", fmt.Errorf("%s: the configured path %s is not an executable file", name, configured)
		}
		return configured, nil
	}
	if configured != "" {
		name = configured
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if dir := os.Getenv("HIVE_TOOLS"); dir != "" {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	hint := installHints[name]
	if hint == "" {
		hint = "install it, or set its path in config (models.executor.path)"
	}
	return "", fmt.Errorf("%s is not installed (not in PATH); install it with `%s`, or set models.executor.path in config", name, hint)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Claude runs Claude Code. In a live session (Live) it speaks stream-json on
// both sides and stays alive between turns (team mode); otherwise it is a
// one-shot `claude -p PROMPT` (standalone mode).
type Claude struct {
	Path           string   // the binary; empty: PATH
	Model          string   // --model
	PermissionMode string   // --permission-mode; default acceptEdits (works as root, unlike --dangerously-skip-permissions)
	AllowedTools   []string // --allowedTools; default the tools an executor needs
	SystemPrompt   string   // --append-system-prompt
	Args           []string // extra arguments from config
	Env            []string
	Live           bool
	// NoPermissionPrompt leaves out `--permission-prompt-tool stdio` in a
	// live session. With it (the default), a tool the permission rules do
	// not allow is asked for with a control_request can_use_tool line,
	// which hive relays to the human as a "permission" checkpoint.
	NoPermissionPrompt bool
}

// DefaultAllowedTools are the tools an executor needs to do a plan.
var DefaultAllowedTools = []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "TodoWrite"}

// Name implements agent.Launcher.
func (Claude) Name() string { return "claude" }

// LiveSessions implements agent.Launcher.
func (c Claude) LiveSessions() bool { return c.Live }

// Argv is the command line for a session.
func (c Claude) Argv(bin, prompt string) []string {
	argv := []string{bin, "-p"}
	if c.Live {
		argv = append(argv, "--input-format", "stream-json")
	}
	argv = append(argv, "--output-format", "stream-json", "--verbose")
	if c.Model != "" {
		argv = append(argv, "--model", c.Model)
	}
	mode := c.PermissionMode
	if mode == "" {
		mode = "acceptEdits"
	}
	tools := c.AllowedTools
	if tools == nil {
		tools = DefaultAllowedTools
	}
	argv = append(argv, "--permission-mode", mode, "--allowedTools", strings.Join(tools, ","))
	if c.Live && !c.NoPermissionPrompt {
		argv = append(argv, "--permission-prompt-tool", "stdio")
	}
	if c.SystemPrompt != "" {
		argv = append(argv, "--append-system-prompt", c.SystemPrompt)
	}
	argv = append(argv, c.Args...)
	if !c.Live {
		// "--" ends the options: --allowedTools takes several values, and
		// Claude Code would read the prompt as one more tool.
		argv = append(argv, "--", prompt)
	}
	return argv
}

// Start implements agent.Launcher.
func (c Claude) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	bin, err := findBinary("claude", c.Path)
	if err != nil {
		return nil, err
	}
	if spec.Model != "" {
		c.Model = spec.Model
	}
	if spec.MaxBudgetUSD > 0 && !c.Live {
		// A one-shot session stops after the turn that crosses it (measured:
		// result subtype error_max_budget_usd). A live session is stopped by
		// hive at its turn boundary instead, so that it can be continued.
		c.Args = append(slices.Clone(c.Args), "--max-budget-usd", strconv.FormatFloat(spec.MaxBudgetUSD, 'f', 2, 64))
	}
	spec.Env = append(append(spec.Env, c.Env...), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
	d := StreamJSON()
	if !c.Live {
		d.Input = "none"
	}
	return agent.Start(ctx, c.Argv(bin, spec.Prompt), spec, d, sink)
}

// Codex runs `codex exec --json PROMPT` (one shot per agent: standalone mode).
type Codex struct {
	Path  string
	Model string
	Args  []string // extra arguments, e.g. -c model_provider=…
	Env   []string
}

// Name implements agent.Launcher.
func (Codex) Name() string { return "codex" }

// LiveSessions implements agent.Launcher.
func (Codex) LiveSessions() bool { return false }

// Argv is the command line for a session.
func (c Codex) Argv(bin, prompt string) []string {
	argv := []string{bin, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"}
	if c.Model != "" {
		argv = append(argv, "-m", c.Model)
	}
	argv = append(argv, c.Args...)
	return append(argv, prompt)
}

// Start implements agent.Launcher.
func (c Codex) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	bin, err := findBinary("codex", c.Path)
	if err != nil {
		return nil, err
	}
	if spec.Model != "" {
		c.Model = spec.Model
	}
	spec.Env = append(spec.Env, c.Env...)
	return agent.Start(ctx, c.Argv(bin, spec.Prompt), spec, agent.Dialect{Line: codexOutputs, Input: "none"}, sink)
}

// codexOutputs reads `codex exec --json` events.
func codexOutputs(b []byte) ([]agent.Output, error) {
	var ev struct {
		Type string `json:"type"`
		Item struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Command string `json:"command"`
		} `json:"item"`
		Usage struct {
			InputTokens  int64 `json:"input_tokens"`
			CachedTokens int64 `json:"cached_input_tokens"`
			CacheWrite   int64 `json:"cache_write_input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
		} `json:"usage"`
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.Type == "" {
		return nil, fmt.Errorf("not a codex event: %q", b)
	}
	switch ev.Type {
	case "item.started":
		if ev.Item.Type == "command_execution" && ev.Item.Command != "" {
			in, _ := json.Marshal(map[string]string{"command": ev.Item.Command})
			return []agent.Output{{Kind: agent.OutToolCall, Tool: "shell", Input: string(in)}}, nil
		}
	case "item.completed":
		if ev.Item.Type == "agent_message" && ev.Item.Text != "" {
			return []agent.Output{{Kind: agent.OutText, Text: ev.Item.Text}}, nil
		}
	case "turn.completed":
		// codex counts cached tokens inside input_tokens; hive's Usage keeps
		// them apart, as the Anthropic API does.
		u := ev.Usage
		// Its input is the context hive follows (codex says no window: the
		// configured context.window applies).
		return []agent.Output{{Kind: agent.OutResult, Usage: agent.Usage{InputTokens: max(0, u.InputTokens-u.CachedTokens-u.CacheWrite), OutputTokens: u.OutputTokens,
			CacheReadInputTokens: u.CachedTokens, CacheCreationInputTokens: u.CacheWrite}, Context: u.InputTokens}}, nil
	case "turn.failed", "error":
		msg := ev.Message
		if len(ev.Error) > 0 {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(ev.Error, &e) == nil && e.Message != "" {
				msg = e.Message
			} else {
				msg = string(ev.Error)
			}
		}
		return []agent.Output{{Kind: agent.OutResult, IsError: true, Text: msg, Limit: codexLimit(msg)}}, nil
	}
	return nil, nil
}

// Command runs any command line (the exec agent, and aider): the prompt is
// given on stdin, or as the last argument when PromptArg is set, and the
// text it prints is scanned for protocol markers. PROGRESS lines count at
// once; the whole output is read as one message when the command ends.
type Command struct {
	CLI       string // the name in config: exec, aider
	Path      string
	Args      []string
	PromptArg bool
	Env       []string
}

// Name implements agent.Launcher.
func (c Command) Name() string { return c.CLI }

// LiveSessions implements agent.Launcher.
func (Command) LiveSessions() bool { return false }

// Start implements agent.Launcher.
func (c Command) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
	if c.Path == "" {
		return nil, fmt.Errorf("the %s agent needs a command: set models.executor.path (and args) in config", c.CLI)
	}
	bin, err := findBinary(filepath.Base(c.Path), c.Path)
	if err != nil {
		return nil, err
	}
	argv := append([]string{bin}, c.Args...)
	input := "stdin"
	if c.PromptArg {
		argv, input = append(argv, spec.Prompt), "none"
	}
	spec.Env = append(spec.Env, c.Env...)
	var all bytes.Buffer
	d := agent.Dialect{
		Input: input,
		Line: func(b []byte) ([]agent.Output, error) {
			all.Write(b)
			all.WriteByte('\n')
			if all.Len() > 2*commandKeep {
				// The markers that matter come last; keep the tail.
				tail := all.Bytes()[all.Len()-commandKeep:]
				all = *bytes.NewBuffer(append([]byte("[earlier output dropped]\n"), tail...))
			}
			if bytes.HasPrefix(bytes.TrimSpace(b), []byte("PROGRESS:")) {
				return []agent.Output{{Kind: agent.OutText, Text: string(b)}}, nil
			}
			return nil, nil
		},
		Finish: func() []agent.Output {
			return []agent.Output{{Kind: agent.OutText, Text: all.String()}, {Kind: agent.OutResult}}
		},
	}
	return agent.Start(ctx, argv, spec, d, sink)
}

// commandKeep is how much of a command agent's output is kept to be read as
// its final message.
const commandKeep = 4 << 20

// Aider runs aider one shot: `aider --message PROMPT --yes-always FILES…`.
func Aider(path, model string, args, env []string) Command {
	a := []string{"--yes-always", "--no-pretty", "--no-stream"}
	if model != "" {
		a = append(a, "--model", model)
	}
	if path == "" {
		path = "aider"
	}
	return Command{CLI: "aider", Path: path, Args: append(append(a, args...), "--message"), PromptArg: true, Env: env}
}
