package cli

import (
	"os"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/redact"
)

// secrets applies the config's secrets.env: agents started through a
// launcher it wraps get those variables from hive's environment, and what
// they say and log has the values (and key-like text) masked before any
// event, note or log sees it (agent.WithSecrets); red masks the journal.
// Every command that starts agents wraps its launchers after its preflight
// (which checks the CLIs themselves).
type secrets struct {
	env []string
	red *redact.Redactor
}

func secretsOf(cfg *config.Config) secrets {
	return secrets{env: cfg.Secrets.Env, red: redact.FromEnv(cfg.Secrets.Env, os.LookupEnv)}
}

// wrap is l with the secrets applied (nil stays nil).
func (s secrets) wrap(l agent.Launcher) agent.Launcher {
	if l == nil {
		return nil
	}
	return agent.WithSecrets(l, s.env, s.red)
}

// wrapAll wraps every launcher of roles, in place.
func (s secrets) wrapAll(roles map[string]agent.Launcher) {
	for role, l := range roles {
		roles[role] = s.wrap(l)
	}
}
