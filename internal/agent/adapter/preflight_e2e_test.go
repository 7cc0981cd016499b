package adapter_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/e2e/e2etest"
	"github.com/hivectl/hive/internal/testsupport"
	"github.com/hivectl/hive/internal/testsupport/fakeopenai"
)

// TestPreflightPassesE2ESetups: the real CLIs configured the way the e2e
// tests configure them against the fake model servers (a key in the
// model's env, a home of their own, codex with a provider of its own) pass
// the preflight, with hive's own environment holding no key at all.
func TestPreflightPassesE2ESetups(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CODEX_API_KEY", "CODEX_HOME", "OPENAI_API_KEY", "FAKE_API_KEY"} {
		t.Setenv(k, "")
	}
	ctx := context.Background()

	claude := adapter.Claude{Path: testsupport.RequireCLI(t, "claude"), Live: true, Env: e2etest.ClaudeEnv("http://127.0.0.1:9", t.TempDir())}
	r, err := adapter.Preflight(ctx, claude, adapter.PreflightOptions{})
	if err != nil {
		t.Fatalf("claude e2e setup: %v", err)
	}
	if !strings.HasPrefix(r.String(), "claude 2.1.") || r.Auth != "API key in ANTHROPIC_API_KEY" || strings.Contains(r.String(), "=test") {
		t.Errorf("claude: %s", r)
	}

	srv := fakeopenai.New(t, nil)
	codexHome := t.TempDir()
	codex := adapter.Codex{Path: fakeopenai.CodexBinary(t), Model: fakeopenai.Model, Args: srv.CodexConfig(),
		Env: []string{"FAKE_API_KEY=test", "CODEX_HOME=" + codexHome, "HOME=" + codexHome}}
	r, err = adapter.Preflight(ctx, codex, adapter.PreflightOptions{})
	if err != nil {
		t.Fatalf("codex e2e setup: %v", err)
	}
	if !strings.HasPrefix(r.String(), "codex 0.") || r.Auth != "API key in FAKE_API_KEY (model provider fake)" {
		t.Errorf("codex: %s", r)
	}
}
