package runconfig

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/workflows"
)

// pickLauncher chooses the agent: --agent, else the executor role in config
// (the models block of seed 003 §5.1).
func Launcher(name string, cfg *config.Config, role string) (agent.Launcher, error) {
	m, _ := cfg.ModelWhy(role)
	if name == "" {
		name = m.CLI
	} else if name != m.CLI {
		m = config.ModelSpec{CLI: name} // --agent overrides the configured CLI and its settings
	}
	env := envList(m.Env)
	switch name {
	case "sim":
		return adapter.Sim{Env: env}, nil
	case "claude":
		return adapter.Claude{Path: m.Path, Model: m.Model, Args: m.Args, Env: env, Live: cfg.TeamMode()}, nil
	case "codex":
		return adapter.Codex{Path: m.Path, Model: m.Model, Args: m.Args, Env: env}, nil
	case "aider":
		return adapter.Aider(m.Path, m.Model, m.Args, env), nil
	case "exec":
		return adapter.Command{CLI: "exec", Path: m.Path, Args: m.Args, Env: env}, nil
	}
	return nil, exit.Errorf(exit.Usage, "unknown agent %q; available: claude, codex, aider, exec, sim", name)
}

// envList turns a config env map into KEY=VALUE entries, sorted so the
// command line is the same on every run.
func envList(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+m[k])
	}
	return out
}

// phaseRoles picks the agents of a phase run's other roles that the config
// asks for: the resolver of merge conflicts (comb) and the verifier. fixed,
// when set, plays both (the demo's own agent).
func PhaseRoles(agentName string, cfg *config.Config, fixed agent.Launcher) (map[string]agent.Launcher, error) {
	roles := map[string]agent.Launcher{}
	for _, role := range []string{"comb", "verifier"} {
		switch {
		case role == "comb" && !cfg.Workflow.Resolver, role == "verifier" && !cfg.Workflow.Verifier:
		case fixed != nil:
			roles[role] = fixed
		default:
			l, err := Launcher(agentName, cfg, role)
			if err != nil {
				return nil, err
			}
			roles[role] = l
		}
	}
	return roles, nil
}

// roleAgents are the agents of hive run's roles, as `hive models` shows
// them: each role's models.ROLE (or what it inherits), with the ladder a
// budget steps down; --agent names the CLI of them all.
func RoleAgents(name string, cfg *config.Config) (map[string]agent.Launcher, map[string][]string, error) {
	launchers, ladders := map[string]agent.Launcher{}, map[string][]string{}
	for _, role := range workflows.Roles {
		l, err := Launcher(name, cfg, role)
		if err != nil {
			return nil, nil, err
		}
		launchers[role], ladders[role] = l, Ladder(cfg, role, l.Name())
	}
	return launchers, ladders, nil
}

// preflightAgents checks, before anything starts, every agent a run may
// start (the executor, if the run has one, then the roles in name order): that its program
// exists and, for claude and codex, that it can log in with what the
// agents will get (allow: the config's secrets.env). It prints what it
// found on w, one line per distinct agent. A failure is a usage error
// (exit 2) that says how to fix it.
func Preflight(ctx context.Context, w io.Writer, allow []string, executor agent.Launcher, roles map[string]agent.Launcher) error {
	type checked struct {
		ready adapter.Ready
		roles []string
	}
	var found []*checked
	byLauncher := map[string]*checked{}
	check := func(role string, l agent.Launcher) error {
		key := fmt.Sprintf("%#v", l) // the same CLI with the same settings is checked once
		if c := byLauncher[key]; c != nil {
			c.roles = append(c.roles, role)
			return nil
		}
		r, err := adapter.Preflight(ctx, l, adapter.PreflightOptions{Allow: allow})
		if err != nil {
			return exit.With(exit.Usage, fmt.Errorf("the %s agent cannot start, so nothing was started: %w", role, err))
		}
		c := &checked{ready: r, roles: []string{role}}
		byLauncher[key] = c
		found = append(found, c)
		return nil
	}
	if executor != nil {
		if err := check("executor", executor); err != nil {
			return err
		}
	}
	for _, role := range slices.Sorted(maps.Keys(roles)) {
		if err := check(role, roles[role]); err != nil {
			return err
		}
	}
	for _, c := range found {
		fmt.Fprintf(w, "agent for %s: %s\n", strings.Join(c.roles, ", "), c.ready)
	}
	return nil
}

// Secrets applies the config's secrets.env: agents started through a
// launcher it wraps get those variables from hive's environment, and what
// they say and log has the values (and key-like text) masked before any
// event, note or log sees it (agent.WithSecrets); Red masks the journal.
// Every command that starts agents wraps its launchers after its preflight
// (which checks the CLIs themselves).
type Secrets struct {
	Env []string
	Red *redact.Redactor
}

// SecretsOf is the project's secrets: secrets.env, with their values in
// hive's environment masked.
func SecretsOf(cfg *config.Config) Secrets {
	return Secrets{Env: cfg.Secrets.Env, Red: redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)}
}

// Wrap is l with the secrets applied (nil stays nil).
func (s Secrets) Wrap(l agent.Launcher) agent.Launcher {
	if l == nil {
		return nil
	}
	return agent.WithSecrets(l, s.Env, s.Red)
}

// WrapAll wraps every launcher of roles, in place.
func (s Secrets) WrapAll(roles map[string]agent.Launcher) {
	for role, l := range roles {
		roles[role] = s.Wrap(l)
	}
}
