package cli

import (
	"sort"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
)

// phaseRoles picks the agents of a phase run's other roles that the config
// asks for: the resolver of merge conflicts (comb) and the verifier. fixed,
// when set, plays both (the demo's own agent).
func phaseRoles(agentName string, cfg *config.Config, fixed agent.Launcher) (map[string]agent.Launcher, error) {
	roles := map[string]agent.Launcher{}
	for _, role := range []string{"comb", "verifier"} {
		switch {
		case role == "comb" && !cfg.Workflow.Resolver, role == "verifier" && !cfg.Workflow.Verifier:
		case fixed != nil:
			roles[role] = fixed
		default:
			l, err := pickLauncher(agentName, cfg, role)
			if err != nil {
				return nil, err
			}
			roles[role] = l
		}
	}
	return roles, nil
}

// pickLauncher chooses the agent: --agent, else the executor role in config
// (the models block of seed 003 §5.1).
func pickLauncher(name string, cfg *config.Config, role string) (agent.Launcher, error) {
	m, _ := cfg.ModelWhy(role)
	if name == "" {
		name = m.CLI
	} else if name != m.CLI {
		m = config.ModelSpec{CLI: name} // --agent overrides the configured CLI and its settings
	}
	env := envList(m.Env)
	switch name {
	case "sim":
		return agent.Sim{Env: env}, nil
	case "claude":
		return agent.Claude{Path: m.Path, Model: m.Model, Args: m.Args, Env: env, Live: cfg.TeamMode()}, nil
	case "codex":
		return agent.Codex{Path: m.Path, Model: m.Model, Args: m.Args, Env: env}, nil
	case "aider":
		return agent.Aider(m.Path, m.Model, m.Args, env), nil
	case "exec":
		return agent.Command{CLI: "exec", Path: m.Path, Args: m.Args, Env: env}, nil
	}
	return nil, exitf(ExitUsage, "unknown agent %q; available: claude, codex, aider, exec, sim", name)
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
