package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/sim"
)

// agentCPU is the CPU time one instant sim agent costs on its own: a
// process started, given its prompt, answered with PLAN COMPLETE and ended,
// without hive around it. It splits the overhead run's children's CPU into
// the agents' share and the rest (the spot-checks' git commands).
func agentCPU(ctx context.Context, hiveBin, planRel string, runs int) (time.Duration, error) {
	bin := hiveBin
	if bin == "" {
		var err error
		if bin, err = agent.SelfPath(); err != nil {
			return 0, err
		}
	}
	prompt := string(agent.UserMessage("- Plan: " + planRel))
	_, before := cpuTimes()
	for i := 0; i < runs; i++ {
		cmd := exec.CommandContext(ctx, bin, "__sim")
		cmd.Env = append(cmd.Environ(), sim.EnvMode+"="+sim.ModeInstant)
		cmd.Stdin = strings.NewReader(prompt)
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("instant agent: %v: %s", err, out)
		}
	}
	_, after := cpuTimes()
	return (after - before) / time.Duration(runs), nil
}
