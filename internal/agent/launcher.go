package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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

// Sim launches hive's own simulated agent: the hive binary itself, run as
// `hive __sim`, speaking Claude Code's stream-json dialect.
type Sim struct {
	// Bin is the hive binary; empty means this process's own binary.
	Bin string
	// Env is added to every sim's environment (HIVE_SIM_DELAY, HIVE_SIM_FAULTS, ...).
	Env []string
}

// Name implements Launcher.
func (Sim) Name() string { return "sim" }

// LiveSessions implements Launcher: the sim keeps its session like Claude Code.
func (Sim) LiveSessions() bool { return true }

// Start implements Launcher.
func (s Sim) Start(ctx context.Context, spec Spec, sink func(Output)) (Session, error) {
	bin := s.Bin
	if bin == "" {
		var err error
		if bin, err = SelfPath(); err != nil {
			return nil, err
		}
	}
	spec.Env = append(spec.Env, s.Env...)
	return StartStreamJSON(ctx, []string{bin, "__sim"}, spec, sink)
}

// SelfPath returns an absolute path that runs this program again. It prefers
// the name the program was started by (so a test harness that runs hive
// through a link named "hive" gets hive, not the test binary) and falls back
// to os.Executable.
func SelfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the hive binary to run the sim agent: %w", err)
	}
	return p, nil
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
