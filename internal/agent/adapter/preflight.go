package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
)

// The preflight runs before any agent starts: a missing program or a CLI
// that cannot log in is said at once, with how to fix it, instead of as a
// failed plan after worktrees were made and the journal written. It reads
// only the environment the agents will get (DefaultEnvAllow, secrets.env,
// a model's env) and the CLIs' own credential files; it never prints a
// key, only where one was found.

// PreflightOptions configure Preflight.
type PreflightOptions struct {
	// Allow names the variables of hive's environment the agents get
	// beyond DefaultEnvAllow: the config's secrets.env.
	Allow []string
	// Environ is hive's environment; nil means os.Environ().
	Environ []string
	// GOOS is the operating system; "" means runtime.GOOS.
	GOOS string
	// Timeout bounds `PROGRAM --version`; 0 means DefaultVersionTimeout.
	Timeout time.Duration
}

// DefaultVersionTimeout bounds `PROGRAM --version`: a CLI that takes longer
// to say its version is not going to run a plan.
const DefaultVersionTimeout = 15 * time.Second

// Ready is what the preflight found for one agent.
type Ready struct {
	Agent   string // claude, codex, aider, exec, sim
	Path    string // the program that will run; "" for the sim in this hive binary
	Version string // as `PROGRAM --version` says it ("2.1.330"); "" when not asked
	Auth    string // how it authenticates ("API key in ANTHROPIC_API_KEY"); "" when not checked
	Note    string // what could not be checked, and what to do if the agents fail because of it
}

// String reads as "claude 2.1.330 (/usr/local/bin/claude), API key in ANTHROPIC_API_KEY".
func (r Ready) String() string {
	s := r.Agent
	switch {
	case r.Agent == "sim" && r.Path == "":
		s = "sim (hive's simulated agent, in this hive binary)"
	case r.Agent == "sim":
		s = "sim (hive's simulated agent, " + r.Path + ")"
	case r.Version != "":
		s += " " + r.Version + " (" + r.Path + ")"
	default:
		s += " (" + r.Path + ")"
	}
	if r.Auth != "" {
		s += ", " + r.Auth
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// Preflight checks that l's program exists and, for Claude Code and Codex,
// that it is logged in or has an API key in the environment its agents get.
// The sim and exec agents are only looked up; aider is looked up and asked
// its version.
func Preflight(ctx context.Context, l agent.Launcher, o PreflightOptions) (Ready, error) {
	l, secrets := agent.Secrets(l)
	if secrets != nil {
		o.Allow = append(append([]string(nil), o.Allow...), secrets...)
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultVersionTimeout
	}
	switch l := l.(type) {
	case Sim:
		bin := l.Bin
		if bin == "" {
			var err error
			if bin, err = SelfPath(); err != nil {
				return Ready{}, err
			}
		}
		if !isExecutable(bin) {
			return Ready{}, fmt.Errorf("sim: %s is not an executable file: the sim agent runs hive itself; run hive from its installed binary", bin)
		}
		if l.Bin == "" {
			// This very binary: its path says nothing, and after `go run`
			// it is a temporary folder that is gone once hive exits.
			return Ready{Agent: "sim"}, nil
		}
		return Ready{Agent: "sim", Path: bin}, nil
	case Claude:
		env := agentEnv(o, l.Env)
		r, err := lookUp(ctx, "claude", l.Path, env, o.Timeout)
		if err != nil {
			return r, err
		}
		r.Auth, r.Note, err = claudeAuth(env, o.GOOS)
		return r, err
	case Codex:
		env := agentEnv(o, l.Env)
		r, err := lookUp(ctx, "codex", l.Path, env, o.Timeout)
		if err != nil {
			return r, err
		}
		r.Auth, err = codexAuth(env, l.Args, o.Environ)
		return r, err
	case Command:
		if l.Path == "" {
			return Ready{}, fmt.Errorf("the %s agent needs a command: set models.executor.path (and args) in config", l.CLI)
		}
		bin, err := findBinary(filepath.Base(l.Path), l.Path)
		if err != nil {
			return Ready{}, err
		}
		r := Ready{Agent: l.CLI, Path: bin}
		if l.CLI == "aider" {
			r.Version, err = programVersion(ctx, bin, agentEnv(o, l.Env), o.Timeout)
		}
		return r, err
	}
	// A launcher hive does not know (a test's): nothing to look up.
	return Ready{Agent: l.Name()}, nil
}

// lookUp finds a CLI and asks its version.
func lookUp(ctx context.Context, name, configured string, env envView, timeout time.Duration) (Ready, error) {
	bin, err := findBinary(name, configured)
	if err != nil {
		return Ready{}, err
	}
	v, err := programVersion(ctx, bin, env, timeout)
	return Ready{Agent: name, Path: bin, Version: v}, err
}

var versionRe = regexp.MustCompile(`\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?`)

// programVersion runs `bin --version` in the agents' environment and
// returns the version it prints ("2.1.330 (Claude Code)" → "2.1.330").
func programVersion(ctx context.Context, bin string, env envView, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env.list()
	cmd.WaitDelay = time.Second // a child that keeps stdout open must not hold the preflight
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("`%s --version` did not answer within %s: the installation looks broken; reinstall it, or set models.executor.path to a working one", bin, timeout)
	}
	if err != nil {
		msg := lastLine(stderr.String())
		if msg == "" {
			msg = lastLine(stdout.String())
		}
		return "", fmt.Errorf("`%s --version` failed (%v): %s; reinstall it, or set models.executor.path to a working one", bin, err, clipText(msg, 200))
	}
	// The version is on stdout; a CLI may warn on stderr first (codex does
	// when its home is under /tmp).
	for _, out := range []string{stdout.String(), stderr.String()} {
		for _, line := range strings.Split(out, "\n") {
			if v := versionRe.FindString(line); v != "" {
				return v, nil
			}
		}
	}
	return clipText(lastLine(stdout.String()), 40), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// envView is the environment an agent gets, by name.
type envView struct {
	vals  map[string]string
	order []string
}

// agentEnv is what Start gives an agent: hive's environment filtered by
// DefaultEnvAllow and o.Allow, then the launcher's own env, overriding.
func agentEnv(o PreflightOptions, extra []string) envView {
	e := envView{vals: map[string]string{}}
	for _, kv := range append(agent.FilterEnv(o.Environ, o.Allow), extra...) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if _, seen := e.vals[k]; !seen {
			e.order = append(e.order, k)
		}
		e.vals[k] = v
	}
	return e
}

func (e envView) get(k string) string { return e.vals[k] }

func (e envView) has(k string) bool { _, ok := e.vals[k]; return ok }

func (e envView) list() []string {
	out := make([]string, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, k+"="+e.vals[k])
	}
	return out
}

// home is the home folder the agent sees.
func (e envView) home() string {
	if h := e.get("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// claudeProviders are the clouds Claude Code can use instead of Anthropic's
// API; their credentials are the cloud's, which hive does not check.
var claudeProviders = []struct{ env, name string }{
	{"CLAUDE_CODE_USE_BEDROCK", "Amazon Bedrock"},
	{"CLAUDE_CODE_USE_VERTEX", "Google Vertex AI"},
	{"CLAUDE_CODE_USE_FOUNDRY", "Microsoft Foundry"},
}

// claudeAuth finds how Claude Code will authenticate, where Claude Code
// 2.1.x looks (measured with 2.1.330): the key and token variables; else
// the login that `claude auth login` keeps in .credentials.json in
// $CLAUDE_SECURESTORAGE_CONFIG_DIR, else $CLAUDE_CONFIG_DIR, else
// ~/.claude (on macOS in the keychain instead); a console key kept as
// primaryApiKey in .claude.json ($CLAUDE_CONFIG_DIR, else the home
// folder); an apiKeyHelper in settings.json.
func claudeAuth(env envView, goos string) (auth, note string, err error) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"} {
		if env.get(k) != "" {
			what := "API key"
			if strings.HasSuffix(k, "TOKEN") {
				what = "token"
			}
			return what + " in " + k, "", nil
		}
	}
	for _, p := range claudeProviders {
		if truthy(env.get(p.env)) {
			return "through " + p.name + " (" + p.env + "; its credentials are not checked by hive)", "", nil
		}
	}
	home := env.home()
	configDir := env.get("CLAUDE_CONFIG_DIR")
	if configDir == "" {
		configDir = filepath.Join(home, ".claude")
	}
	storeDir := configDir
	if env.has("CLAUDE_SECURESTORAGE_CONFIG_DIR") {
		if storeDir = env.get("CLAUDE_SECURESTORAGE_CONFIG_DIR"); storeDir == "" {
			storeDir = filepath.Join(home, ".claude")
		}
	}
	creds := filepath.Join(storeDir, ".credentials.json")
	var login struct {
		ClaudeAIOAuth *struct {
			AccessToken  string `json:"accessToken"`
			RefreshToken string `json:"refreshToken"`
		} `json:"claudeAiOauth"`
	}
	if readJSON(creds, &login) && login.ClaudeAIOAuth != nil && (login.ClaudeAIOAuth.AccessToken != "" || login.ClaudeAIOAuth.RefreshToken != "") {
		return "logged in (" + creds + ")", "", nil
	}
	globalDir := env.get("CLAUDE_CONFIG_DIR")
	if globalDir == "" {
		globalDir = home
	}
	global := filepath.Join(globalDir, ".claude.json")
	var cfg struct {
		PrimaryAPIKey string `json:"primaryApiKey"`
	}
	if readJSON(global, &cfg) && cfg.PrimaryAPIKey != "" {
		return "API key kept by `claude auth login` (" + global + ")", "", nil
	}
	settings := filepath.Join(configDir, "settings.json")
	var set struct {
		APIKeyHelper string `json:"apiKeyHelper"`
	}
	if readJSON(settings, &set) && set.APIKeyHelper != "" {
		return "API key from the apiKeyHelper in " + settings, "", nil
	}
	if goos == "darwin" {
		return "", "could not check the login: on macOS Claude Code keeps it in the keychain; if the agents say they are not logged in, run `claude auth login` or export ANTHROPIC_API_KEY", nil
	}
	return "", "", fmt.Errorf("claude is not logged in and has no API key: none of ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN is set, and %s holds no login\n"+
		"Fix it with one of:\n"+
		"  claude auth login            # log in with your Claude account (the CLI keeps the login in %s)\n"+
		"  export ANTHROPIC_API_KEY=…   # an API key from console.anthropic.com\n"+
		"then run hive again", creds, storeDir)
}

// codexAuth finds how `codex exec` will authenticate (measured with codex
// 0.169.0): a model provider of the config whose env_key names a
// variable, which must then be set; else the built-in OpenAI provider,
// which reads CODEX_API_KEY, or the auth.json `codex login` writes in
// $CODEX_HOME (default ~/.codex). It does not read OPENAI_API_KEY.
func codexAuth(env envView, args, environ []string) (string, error) {
	codexHome := env.get("CODEX_HOME")
	if codexHome == "" {
		codexHome = filepath.Join(env.home(), ".codex")
	}
	conf := codexConfig(filepath.Join(codexHome, "config.toml"), args)
	provider := unquote(conf["model_provider"])
	if provider == "" || provider == "openai" {
		return codexOpenAIAuth(env, codexHome)
	}
	key := unquote(conf["model_providers."+provider+".env_key"])
	if key == "" {
		if m := envKeyRe.FindStringSubmatch(conf["model_providers."+provider]); m != nil {
			key = m[1]
		}
	}
	switch {
	case key == "":
		return "model provider " + provider + " (no API key named in its config)", nil
	case env.get(key) != "":
		return "API key in " + key + " (model provider " + provider + ")", nil
	}
	msg := fmt.Sprintf("codex uses model provider %s, which reads its API key from %s, and the agents do not get %s", provider, key, key)
	if hasValue(environ, key) {
		// Set in hive's environment but not passed on: hive gives agents
		// only the variables it knows or the config names.
		return "", fmt.Errorf("%s: it is set here, but hive passes an agent only the variables it knows; add %q to secrets.env in .hive/config.json, then run hive again", msg, key)
	}
	return "", fmt.Errorf("%s: export %s=… (or set it in the model's env in config), then run hive again", msg, key)
}

func codexOpenAIAuth(env envView, codexHome string) (string, error) {
	if env.get("CODEX_API_KEY") != "" {
		return "API key in CODEX_API_KEY", nil
	}
	path := filepath.Join(codexHome, "auth.json")
	var auth struct {
		APIKey *string `json:"OPENAI_API_KEY"`
		Tokens *struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		} `json:"tokens"`
	}
	if readJSON(path, &auth) {
		if auth.APIKey != nil && *auth.APIKey != "" {
			return "API key saved by `codex login` (" + path + ")", nil
		}
		if auth.Tokens != nil && (auth.Tokens.AccessToken != "" || auth.Tokens.RefreshToken != "") {
			return "logged in (" + path + ")", nil
		}
	}
	hint := ""
	if env.get("OPENAI_API_KEY") != "" {
		hint = "\n(OPENAI_API_KEY is set, but `codex exec` does not read it: save it with the second command, or export it as CODEX_API_KEY)"
	}
	return "", fmt.Errorf("codex is not logged in and has no API key: CODEX_API_KEY is not set, and %s holds no login%s\n"+
		"Fix it with one of:\n"+
		"  codex login                                            # log in with your ChatGPT account\n"+
		"  printenv OPENAI_API_KEY | codex login --with-api-key   # keep an API key in %s\n"+
		"  export CODEX_API_KEY=…\n"+
		"then run hive again", path, hint, path)
}

var envKeyRe = regexp.MustCompile(`env_key\s*=\s*["']([^"']+)["']`)

// codexConfig reads the keys of codex's config.toml and of the -c/--config
// arguments (which win) as flat dotted names: "model_provider",
// "model_providers.fake" (an inline table, as text), "model_providers.fake.env_key".
// It is a reader of simple key = value lines, not of all of TOML: enough to
// find the model provider and its env_key.
func codexConfig(path string, args []string) map[string]string {
	conf := map[string]string{}
	if f, err := os.Open(path); err == nil {
		section := ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "["):
				section = strings.ReplaceAll(strings.Trim(line, "[] "), `"`, "")
			default:
				if k, v, ok := strings.Cut(line, "="); ok {
					k = strings.ReplaceAll(strings.TrimSpace(k), `"`, "")
					if section != "" {
						k = section + "." + k
					}
					conf[k] = strings.TrimSpace(v)
				}
			}
		}
		f.Close()
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var kv string
		switch {
		case a == "--oss":
			conf["model_provider"] = "oss"
			continue
		case a == "-c" || a == "--config":
			if i+1 < len(args) {
				i++
				kv = args[i]
			}
		case strings.HasPrefix(a, "-c="), strings.HasPrefix(a, "--config="):
			_, kv, _ = strings.Cut(a, "=")
		default:
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			conf[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return conf
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), `"'`) }

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func hasValue(environ []string, name string) bool {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name && v != "" {
			return true
		}
	}
	return false
}

// readJSON decodes the JSON file at path into v; false when it is missing
// or not JSON (a CLI would not take it either).
func readJSON(path string, v any) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	return json.Unmarshal(bytes.TrimSpace(b), v) == nil
}
