package adapter

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/agent"
)

// The preflight tests run fake CLIs (shell scripts that print what the
// real ones print for --version) from a PATH of their own, with a home
// folder of their own, and hand Preflight an environment of their own:
// nothing of the machine's logins or keys reaches them.

const (
	claudeVersionOut = "2.1.330 (Claude Code)"
	codexVersionOut  = "codex-cli 0.169.0"
	// secretKey must never appear in what the preflight says.
	secretKey = "sk-ant-api03-preflight-secret-0123456789"
)

// fakeBin writes an executable script named name into a new PATH folder.
func fakeBin(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// preflightEnv points PATH at bin and HOME at a new folder, and returns
// options whose environment holds those and extra.
func preflightEnv(t *testing.T, bin string, extra ...string) (PreflightOptions, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("HIVE_TOOLS", "")
	env := append([]string{"PATH=" + bin, "HOME=" + home}, extra...)
	return PreflightOptions{Environ: env, GOOS: "linux"}, home
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func TestPreflightMissingProgram(t *testing.T) {
	for _, l := range []agent.Launcher{Claude{}, Codex{}} {
		o, _ := preflightEnv(t, t.TempDir(), "ANTHROPIC_API_KEY="+secretKey)
		_, err := Preflight(context.Background(), l, o)
		if err == nil {
			t.Fatalf("%s: no error without the program", l.Name())
		}
		mustContain(t, l.Name()+" error", err.Error(), l.Name()+" is not installed", installHints[l.Name()])
	}
	// A configured path that is not there.
	o, _ := preflightEnv(t, t.TempDir())
	if _, err := Preflight(context.Background(), Claude{Path: "/nonexistent/claude"}, o); err == nil || !strings.Contains(err.Error(), "/nonexistent/claude is not an executable") {
		t.Errorf("configured path: err = %v", err)
	}
}

func TestPreflightClaudeNotLoggedIn(t *testing.T) {
	bin := fakeBin(t, "claude", "echo '"+claudeVersionOut+"'")
	o, home := preflightEnv(t, bin, "ANTHROPIC_BASE_URL=http://127.0.0.1:9")
	// A credentials file without a login is no login (Claude Code says
	// "Not logged in" for it too).
	writeFile(t, filepath.Join(home, ".claude", ".credentials.json"), `{}`)
	_, err := Preflight(context.Background(), Claude{}, o)
	if err == nil {
		t.Fatal("no error without a login or a key")
	}
	mustContain(t, "error", err.Error(), "claude is not logged in and has no API key",
		filepath.Join(home, ".claude", ".credentials.json"), "claude auth login", "export ANTHROPIC_API_KEY=…")
}

func TestPreflightClaudeKeyPresent(t *testing.T) {
	bin := fakeBin(t, "claude", "echo '"+claudeVersionOut+"'")
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"} {
		o, _ := preflightEnv(t, bin, k+"="+secretKey)
		r, err := Preflight(context.Background(), Claude{}, o)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if r.Version != "2.1.330" || !strings.HasSuffix(r.Auth, "in "+k) {
			t.Errorf("%s: %+v", k, r)
		}
		if s := r.String(); !strings.HasPrefix(s, "claude 2.1.330 (") || strings.Contains(s, secretKey) {
			t.Errorf("%s: says %q", k, s)
		}
	}
	// A key set in the model's env (config) counts; one hive does not
	// pass on does not.
	o, _ := preflightEnv(t, bin, "MY_ANTHROPIC_KEY="+secretKey)
	if _, err := Preflight(context.Background(), Claude{Env: []string{"ANTHROPIC_API_KEY=" + secretKey}}, o); err != nil {
		t.Errorf("key in the model's env: %v", err)
	}
	if _, err := Preflight(context.Background(), Claude{}, o); err == nil {
		t.Error("a variable hive does not pass to agents counted as a key")
	} else if strings.Contains(err.Error(), secretKey) {
		t.Error("the error shows the key")
	}
}

func TestPreflightClaudeCredentialsFile(t *testing.T) {
	bin := fakeBin(t, "claude", "echo '"+claudeVersionOut+"'")
	login := `{"claudeAiOauth":{"accessToken":"` + secretKey + `","refreshToken":"r","expiresAt":1,"scopes":["user:inference"]}}`
	t.Run("home", func(t *testing.T) {
		o, home := preflightEnv(t, bin)
		writeFile(t, filepath.Join(home, ".claude", ".credentials.json"), login)
		r, err := Preflight(context.Background(), Claude{}, o)
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, "auth", r.Auth, "logged in", filepath.Join(home, ".claude", ".credentials.json"))
		if strings.Contains(r.String(), secretKey) {
			t.Errorf("says the token: %s", r)
		}
	})
	t.Run("CLAUDE_CONFIG_DIR", func(t *testing.T) {
		cfg := t.TempDir()
		o, home := preflightEnv(t, bin, "CLAUDE_CONFIG_DIR="+cfg)
		// Claude Code reads only the configured folder then: a login in
		// ~/.claude does not count.
		writeFile(t, filepath.Join(home, ".claude", ".credentials.json"), login)
		if _, err := Preflight(context.Background(), Claude{}, o); err == nil || !strings.Contains(err.Error(), filepath.Join(cfg, ".credentials.json")) {
			t.Fatalf("login outside CLAUDE_CONFIG_DIR: err = %v", err)
		}
		writeFile(t, filepath.Join(cfg, ".credentials.json"), login)
		if r, err := Preflight(context.Background(), Claude{}, o); err != nil || !strings.Contains(r.Auth, cfg) {
			t.Fatalf("login in CLAUDE_CONFIG_DIR: %+v, %v", r, err)
		}
	})
	t.Run("CLAUDE_SECURESTORAGE_CONFIG_DIR", func(t *testing.T) {
		store := t.TempDir()
		o, _ := preflightEnv(t, bin, "CLAUDE_CONFIG_DIR="+t.TempDir(), "CLAUDE_SECURESTORAGE_CONFIG_DIR="+store)
		writeFile(t, filepath.Join(store, ".credentials.json"), login)
		if r, err := Preflight(context.Background(), Claude{}, o); err != nil || !strings.Contains(r.Auth, store) {
			t.Fatalf("login in CLAUDE_SECURESTORAGE_CONFIG_DIR: %+v, %v", r, err)
		}
	})
	t.Run("primaryApiKey", func(t *testing.T) {
		o, home := preflightEnv(t, bin)
		writeFile(t, filepath.Join(home, ".claude.json"), `{"primaryApiKey":"`+secretKey+`"}`)
		if r, err := Preflight(context.Background(), Claude{}, o); err != nil || strings.Contains(r.String(), secretKey) {
			t.Fatalf("%+v, %v", r, err)
		}
	})
	t.Run("apiKeyHelper", func(t *testing.T) {
		o, home := preflightEnv(t, bin)
		writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"apiKeyHelper":"pass show anthropic"}`)
		if r, err := Preflight(context.Background(), Claude{}, o); err != nil || !strings.Contains(r.Auth, "apiKeyHelper") {
			t.Fatalf("%+v, %v", r, err)
		}
	})
	t.Run("bedrock", func(t *testing.T) {
		o, _ := preflightEnv(t, bin, "CLAUDE_CODE_USE_BEDROCK=1")
		if r, err := Preflight(context.Background(), Claude{}, o); err != nil || !strings.Contains(r.Auth, "Amazon Bedrock") {
			t.Fatalf("%+v, %v", r, err)
		}
	})
}

// On macOS the login is in the keychain: the preflight says it could not
// check, and does not fail.
func TestPreflightClaudeMacOSKeychain(t *testing.T) {
	bin := fakeBin(t, "claude", "echo '"+claudeVersionOut+"'")
	o, _ := preflightEnv(t, bin)
	o.GOOS = "darwin"
	r, err := Preflight(context.Background(), Claude{}, o)
	if err != nil {
		t.Fatalf("macOS without a file: %v", err)
	}
	mustContain(t, "note", r.String(), "could not check", "keychain", "claude auth login")
}

func TestPreflightVersionTimeout(t *testing.T) {
	bin := fakeBin(t, "claude", "exec /bin/sleep 30")
	o, _ := preflightEnv(t, bin, "ANTHROPIC_API_KEY="+secretKey)
	o.Timeout = 100 * time.Millisecond
	_, err := Preflight(context.Background(), Claude{}, o)
	if err == nil || !strings.Contains(err.Error(), "--version` did not answer within 100ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestPreflightVersionFails(t *testing.T) {
	bin := fakeBin(t, "claude", "echo 'error while loading shared libraries' >&2; exit 127")
	o, _ := preflightEnv(t, bin, "ANTHROPIC_API_KEY="+secretKey)
	_, err := Preflight(context.Background(), Claude{}, o)
	if err == nil || !strings.Contains(err.Error(), "error while loading shared libraries") {
		t.Fatalf("err = %v", err)
	}
}

func TestPreflightCodex(t *testing.T) {
	bin := fakeBin(t, "codex", "echo '"+codexVersionOut+"'")
	fake := []string{"-c", "model_provider=fake", "-c", `model_providers.fake={name="fake",base_url="http://127.0.0.1:9/v1",wire_api="responses",env_key="FAKE_API_KEY"}`}
	tests := []struct {
		name    string
		env     []string // hive's environment
		own     []string // the model's env in config (Codex.Env)
		args    []string
		files   map[string]string // relative to home
		auth    string            // in Ready.Auth
		wantErr []string
	}{
		{name: "no login", wantErr: []string{"codex is not logged in and has no API key", "codex login", "codex login --with-api-key", "export CODEX_API_KEY=…"}},
		{name: "CODEX_API_KEY", env: []string{"CODEX_API_KEY=" + secretKey}, auth: "API key in CODEX_API_KEY"},
		// codex 0.169.0's exec sends no key when only OPENAI_API_KEY is set.
		{name: "OPENAI_API_KEY only", env: []string{"OPENAI_API_KEY=" + secretKey}, wantErr: []string{"OPENAI_API_KEY is set, but `codex exec` does not read it"}},
		{name: "auth.json in ~/.codex", files: map[string]string{".codex/auth.json": `{"auth_mode":"apikey","OPENAI_API_KEY":"` + secretKey + `"}`}, auth: "API key saved by `codex login`"},
		{name: "ChatGPT login in CODEX_HOME", env: []string{"CODEX_HOME=$HOME/ch"}, files: map[string]string{"ch/auth.json": `{"OPENAI_API_KEY":null,"tokens":{"access_token":"a","refresh_token":"r"}}`}, auth: "logged in"},
		{name: "auth.json outside CODEX_HOME", env: []string{"CODEX_HOME=$HOME/ch"}, files: map[string]string{".codex/auth.json": `{"OPENAI_API_KEY":"k"}`}, wantErr: []string{"ch/auth.json holds no login"}},
		{name: "provider key set", args: fake, own: []string{"FAKE_API_KEY=" + secretKey}, auth: "API key in FAKE_API_KEY (model provider fake)"},
		{name: "provider key missing", args: fake, wantErr: []string{"model provider fake", "FAKE_API_KEY", "export FAKE_API_KEY=…"}},
		{name: "provider in config.toml", env: []string{"LOCAL_KEY=" + secretKey, "CODEX_HOME=$HOME/ch"}, files: map[string]string{"ch/config.toml": "model_provider = \"local\"\n\n[model_providers.local]\nname = \"local\"\nenv_key = \"LOCAL_KEY\"\n"},
			wantErr: []string{"model provider local", "LOCAL_KEY", `add "LOCAL_KEY" to secrets.env`}},
		{name: "provider without a key", args: []string{"-c", "model_provider=ollama"}, auth: "model provider ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, home := preflightEnv(t, bin)
			for _, kv := range tt.env {
				o.Environ = append(o.Environ, strings.ReplaceAll(kv, "$HOME", home))
			}
			for rel, content := range tt.files {
				writeFile(t, filepath.Join(home, rel), content)
			}
			r, err := Preflight(context.Background(), Codex{Args: tt.args, Env: tt.own}, o)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; %+v", r)
				}
				mustContain(t, "error", err.Error(), tt.wantErr...)
				if strings.Contains(err.Error(), secretKey) {
					t.Errorf("the error shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != "0.169.0" || !strings.Contains(r.Auth, tt.auth) || strings.Contains(r.String(), secretKey) {
				t.Errorf("got %+v (%s), want auth %q", r, r, tt.auth)
			}
		})
	}
}

// The config's secrets.env lets a variable through to the agents, and so
// through the preflight.
func TestPreflightSecretsEnvAllow(t *testing.T) {
	bin := fakeBin(t, "codex", "echo '"+codexVersionOut+"'")
	o, _ := preflightEnv(t, bin, "LOCAL_KEY="+secretKey)
	args := []string{"-c", "model_provider=local", "-c", "model_providers.local.env_key=\"LOCAL_KEY\""}
	if _, err := Preflight(context.Background(), Codex{Args: args}, o); err == nil {
		t.Fatal("a variable hive does not pass counted")
	}
	if _, err := Preflight(context.Background(), agent.WithSecrets(Codex{Args: args}, []string{"LOCAL_KEY"}, nil), o); err != nil {
		t.Fatalf("secrets.env names it: %v", err)
	}
}

// The sim and exec agents: only the program is looked up; exec's command is
// never run by the preflight.
func TestPreflightSimAndExec(t *testing.T) {
	o, home := preflightEnv(t, t.TempDir())
	self := filepath.Join(fakeBin(t, "hive", "exit 0"), "hive")
	r, err := Preflight(context.Background(), Sim{Bin: self}, o)
	if err != nil || r.Path != self || r.Auth != "" || r.Version != "" {
		t.Fatalf("sim: %+v, %v", r, err)
	}
	if _, err := Preflight(context.Background(), Sim{Bin: filepath.Join(home, "no-hive")}, o); err == nil {
		t.Error("sim: a missing binary passed")
	}

	if _, err := Preflight(context.Background(), Command{CLI: "exec"}, o); err == nil || !strings.Contains(err.Error(), "set models.executor.path") {
		t.Errorf("exec without a command: err = %v", err)
	}
	ran := filepath.Join(home, "ran")
	agent := filepath.Join(fakeBin(t, "my-agent", "touch "+ran), "my-agent")
	r, err = Preflight(context.Background(), Command{CLI: "exec", Path: agent}, o)
	if err != nil || r.Path != agent {
		t.Fatalf("exec: %+v, %v", r, err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the preflight ran the exec agent's command")
	}
	if _, err := Preflight(context.Background(), Command{CLI: "exec", Path: "not-installed-agent"}, o); err == nil || !strings.Contains(err.Error(), "not-installed-agent is not installed") {
		t.Errorf("exec with a missing command: err = %v", err)
	}
}
