package fakeopenai

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

// Model is a model name codex 0.169.0 has metadata for. Unknown names work
// too but make codex emit an item.completed of type "error" ("Model metadata
// for `X` not found. Defaulting to fallback metadata") and offer other tools.
const Model = "gpt-5.5"

// CodexBinary returns the path of the real codex CLI: $HIVE_TOOLS/codex, else
// <module root>/.tools/node_modules/.bin/codex, else codex in PATH. When it is
// missing the test fails if CI is set and is skipped otherwise.
func CodexBinary(t testing.TB) string {
	t.Helper()
	var path string
	if dir := os.Getenv("HIVE_TOOLS"); dir != "" {
		path = filepath.Join(dir, "codex")
	}
	return testsupport.FindTool(t, "codex", path, filepath.Join(".tools", "node_modules", ".bin", "codex"), "tools")
}

// CodexConfig returns the -c flags that point codex at the server as model
// provider "fake" (wire_api "responses", key from env FAKE_API_KEY, no retries
// so a scripted error fails the turn at once). They are accepted both before
// the subcommand (`codex -c … exec …`) and after it.
func (s *Server) CodexConfig() []string { return s.CodexConfigRetrying(0) }

// CodexConfigRetrying is CodexConfig with codex's own retries of a failed
// request or stream (its default is 4 and 5): what a user's codex does at
// a rate limit or an overload.
func (s *Server) CodexConfigRetrying(retries int) []string {
	return []string{
		"-c", "model_provider=fake",
		"-c", fmt.Sprintf(`model_providers.fake={name="fake",base_url="%s/v1",wire_api="responses",env_key="FAKE_API_KEY",request_max_retries=%d,stream_max_retries=%d}`,
			s.URL(), retries, retries),
	}
}

// CodexEnv returns the environment for codex: the current one without
// CODEX_*/OPENAI_* variables, plus CODEX_HOME=home and FAKE_API_KEY=test.
func CodexEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CODEX_") || strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "FAKE_API_KEY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CODEX_HOME="+home, "FAKE_API_KEY=test")
}

// Command returns `codex <CodexConfig> args…` run in dir with CodexEnv(home)
// and stdin from /dev/null, e.g.
//
//	s.Command(fakeopenai.CodexBinary(t), repo, t.TempDir(), "exec", "--json", "-m", fakeopenai.Model,
//		"--dangerously-bypass-approvals-and-sandbox", "say hi")
func (s *Server) Command(bin, dir, home string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append(s.CodexConfig(), args...)...)
	cmd.Dir = dir
	cmd.Env = CodexEnv(home)
	cmd.Stdin = nil // /dev/null
	return cmd
}
