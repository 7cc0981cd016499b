package agent

import (
	"regexp"
	"strings"
)

// DefaultEnvAllow names the variables of hive's own environment an agent
// receives: what a CLI needs to run (locale, home, temp, proxies,
// certificates), the agent CLIs' own settings and keys, hive's internal
// HIVE_* variables, git's author identity and config isolation, and the Go
// toolchain's settings. A name
// ending in "*" is a prefix. Everything else stays with hive unless the
// config names it (secrets.env) or sets it (a model's env).
var DefaultEnvAllow = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR",
	"TMPDIR", "SHELL", "TZ", "XDG_*",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	"ANTHROPIC_*", "CLAUDE_*", "OPENAI_*", "CODEX_*", "AIDER_*", "IS_SANDBOX", "DISABLE_TELEMETRY",
	"HIVE_*",
	"GIT_AUTHOR_*", "GIT_COMMITTER_*", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_TERMINAL_PROMPT",
	"GOCOVERDIR", // coverage of the sim agent, which is hive itself
	// The Go toolchain's settings: an agent builds and tests with the
	// developer's caches and module proxy.
	"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOTOOLCHAIN",
}

// FilterEnv keeps the KEY=VALUE entries of environ whose names
// DefaultEnvAllow or allow name.
func FilterEnv(environ, allow []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if allowed(name, DefaultEnvAllow) || allowed(name, allow) {
			out = append(out, kv)
		}
	}
	return out
}

func allowed(name string, list []string) bool {
	for _, a := range list {
		if p, ok := strings.CutSuffix(a, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if a == name {
			return true
		}
	}
	return false
}

// secretName is a variable whose value is a credential: the agent may need
// it, but its log must not show it.
var secretName = regexp.MustCompile(`(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)$`)

// secretValues returns the values of the entries of env whose names look
// like credentials (ANTHROPIC_API_KEY, GITHUB_TOKEN, ...).
func secretValues(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, v, ok := strings.Cut(kv, "="); ok && secretName.MatchString(name) && v != "" {
			out = append(out, v)
		}
	}
	return out
}
