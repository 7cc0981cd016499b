package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/hivectl/hive/internal/agent"
)

// preflightAgents checks, before anything starts, every agent a run may
// start (the executor, if the run has one, then the roles in name order): that its program
// exists and, for claude and codex, that it can log in with what the
// agents will get (allow: the config's secrets.env). It prints what it
// found on w, one line per distinct agent. A failure is a usage error
// (exit 2) that says how to fix it.
func preflightAgents(ctx context.Context, w io.Writer, allow []string, executor agent.Launcher, roles map[string]agent.Launcher) error {
	type checked struct {
		ready agent.Ready
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
		r, err := agent.Preflight(ctx, l, agent.PreflightOptions{Allow: allow})
		if err != nil {
			return &exitError{code: ExitUsage, err: fmt.Errorf("the %s agent cannot start, so nothing was started: %w", role, err)}
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
