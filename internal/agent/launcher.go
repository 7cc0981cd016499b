package agent

import (
	"context"

	"github.com/hivectl/hive/internal/redact"
)

// Launcher starts agents of one kind.
type Launcher interface {
	// Name is the agent's name in config and on the command line ("sim", "claude", ...).
	Name() string
	// LiveSessions reports whether its agents stay alive between turns and
	// take further messages (team mode); otherwise an agent ends at a
	// checkpoint and a continuation follows (standalone mode).
	LiveSessions() bool
	// Start starts an agent on spec and streams its Outputs to sink.
	Start(ctx context.Context, spec Spec, sink func(Output)) (Session, error)
}

// WithSecrets returns a Launcher that starts l's agents with the config's
// secret variables passed through from hive's environment (allow, the
// names of secrets.env) and their logs masked by red. It is how the command
// layer applies secrets.env without the runner knowing about it.
func WithSecrets(l Launcher, allow []string, red *redact.Redactor) Launcher {
	return secured{Launcher: l, allow: allow, red: red}
}

type secured struct {
	Launcher
	allow []string
	red   *redact.Redactor
}

// Secrets undoes WithSecrets: it returns the launcher l wraps and the
// secret variables its agents are given, for a check that must see both
// (the adapter package's preflight). Any other launcher is returned as it
// is, with none.
func Secrets(l Launcher) (Launcher, []string) {
	if s, ok := l.(secured); ok {
		return s.Launcher, s.allow
	}
	return l, nil
}

// Start implements Launcher.
func (s secured) Start(ctx context.Context, spec Spec, sink func(Output)) (Session, error) {
	spec.AllowEnv = append(append([]string(nil), spec.AllowEnv...), s.allow...)
	if spec.Redactor == nil {
		spec.Redactor = s.red
	}
	red := spec.Redactor
	// What an agent says becomes events, the journal, the dashboard and
	// notifications: mask it once, here, before any of them sees it.
	return s.Launcher.Start(ctx, spec, func(o Output) {
		// (A permission request's Input goes back to the CLI as the tool's
		// input, so it stays as it is; the journal masks its copy.)
		o.Text, o.Err = red.String(o.Text), red.String(o.Err)
		sink(o)
	})
}
