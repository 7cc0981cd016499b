package runconfig

import (
	"context"
	"io"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/runner"
)

// TemporalPhase readies the work of a Temporal run of phase ph in the
// repository: the configured executor agent (checked, its secrets kept out
// of its logs); the shared tree, or with remote a worktree per plan, shared
// through that git remote.
// The agents' checks are said on w.
func TemporalPhase(ctx context.Context, w io.Writer, repo *gitx.Repo, cfg *config.Config, ph *plan.Phase, agentName, remote string) (runner.Options, error) {
	launcher, err := Launcher(agentName, cfg, "executor")
	if err != nil {
		return runner.Options{}, err
	}
	roles, err := PhaseRoles(agentName, cfg, nil)
	if err != nil {
		return runner.Options{}, err
	}
	if err := Preflight(ctx, w, cfg.Secrets.Env, launcher, roles); err != nil {
		return runner.Options{}, err
	}
	sec := SecretsOf(cfg)
	sec.WrapAll(roles)
	// The agent a run switched by a usage limit starts (limits.on_limit
	// fallback), where this worker's config names one.
	var fallback agent.Launcher
	if _, ok := cfg.Models[config.FallbackRole]; ok {
		l, err := Launcher("", cfg, config.FallbackRole)
		if err != nil {
			return runner.Options{}, err
		}
		fallback = sec.Wrap(l)
	}
	tab := Prices(cfg)
	var git runner.Git
	if remote != "" {
		git = runner.Git{
			Remote:       remote,
			Worktrees:    true,
			WorktreeRoot: WorktreeRoot(cfg, repo.Root),
			Branching:    cfg.Git.BranchingStrategy,
			Setup:        WorktreeSetup(cfg),
			GateCommand:  cfg.Gates.PostMergeCommand,
		}
	}
	return runner.Options{
		Git:      git,
		Repo:     repo,
		Phase:    ph,
		Schedule: runner.Schedule{MaxConcurrent: cfg.MaxConcurrent(), Dynamic: cfg.Dynamic(), Verify: cfg.Workflow.Verifier},
		Agents: runner.Agents{
			Launcher: sec.Wrap(launcher),
			Roles:    roles,
			Team:     cfg.TeamMode(),
			Stall:    cfg.Timeouts.Stall,
			Retries:  cfg.Retries.Agent,
			Prices:   tab,
			Ladder:   Ladder(cfg, "executor", launcher.Name()),
			Fallback: fallback,
		},
	}, nil
}
