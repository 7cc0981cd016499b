package adapter

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/hivectl/hive/internal/agent"
)

// Sim launches hive's own simulated agent: the hive binary itself, run as
// `hive __sim`, speaking Claude Code's stream-json dialect.
type Sim struct {
	// Bin is the hive binary; empty means this process's own binary.
	Bin string
	// Env is added to every sim's environment (HIVE_SIM_DELAY, HIVE_SIM_FAULTS, ...).
	Env []string
}

// Name implements agent.Launcher.
func (Sim) Name() string { return "sim" }

// LiveSessions implements agent.Launcher: the sim keeps its session like Claude Code.
func (Sim) LiveSessions() bool { return true }

// Start implements agent.Launcher.
func (s Sim) Start(ctx context.Context, spec agent.Spec, sink func(agent.Output)) (agent.Session, error) {
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
