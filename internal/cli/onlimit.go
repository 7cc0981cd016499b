package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/work"
)

// onLimitFlag is --on-limit, shared by execute-phase and run.
type onLimitFlag struct{ value string }

func (f *onLimitFlag) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.value, "on-limit", "", "at an agent's usage limit: wait for the reset and go on, stop (the same command goes on later), or fallback to the models.fallback agent for the rest of the run (default: limits.on_limit, wait)")
}

// policy is what a run does at a usage limit: --on-limit when given,
// else limits.on_limit; with the agent it falls back to, which the policy
// fallback needs configured.
func (f onLimitFlag) policy(cfg *config.Config) (work.OnLimit, agent.Launcher, error) {
	name, from := f.value, "--on-limit"
	if name == "" {
		name, from = cfg.Limits.OnLimit, "limits.on_limit"
	}
	p, err := work.ParseOnLimit(name)
	if err != nil {
		return "", nil, exitf(ExitUsage, "%s: %v", from, err)
	}
	if p != work.OnLimitFallback {
		return p, nil, nil
	}
	if _, ok := cfg.Models[config.FallbackRole]; !ok {
		return "", nil, exitf(ExitUsage, `%s fallback: no agent to fall back to; add one to .hive/config.json, such as {"models": {"fallback": {"cli": "codex"}}}`, from)
	}
	l, err := pickLauncher("", cfg, config.FallbackRole)
	return p, l, err
}

// stoppedAtLimit is the exit of a run that stopped at a usage limit
// (--on-limit stop): how long is left, and the command that goes on.
func stoppedAtLimit(err error, now time.Time, resume string) error {
	var stopped *work.StoppedAtLimit
	if !errors.As(err, &stopped) {
		return nil
	}
	w := stopped.Wait
	left := ""
	if d := w.Until.Sub(now).Round(time.Minute); d > 0 {
		left = fmt.Sprintf(" (in %s)", d)
	}
	return exitf(ExitPaused, "%s%s; every agent's commits are kept.\ngo on: %s\n  (before then it waits for the rest of the wait; hive answer limit resume-now in another terminal ends the wait at once)",
		stopped.Error(), left, resume)
}
