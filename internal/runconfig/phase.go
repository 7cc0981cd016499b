package runconfig

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/plan"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/runner/integration"
	"github.com/hivectl/hive/internal/runner/replay"
)

// Phase is what execute-phase asks of a phase run here: its flags, the
// value the local host takes.
type Phase struct {
	// Stderr hears what is settled (the agents checked, a resumed run's
	// --yes).
	Stderr io.Writer
	// Agent runs the plans ("": the config's); Fixed, when set, plays
	// every agent of the run instead (the demo's own, checked by it).
	Agent string
	Fixed agent.Launcher
	Yes   bool
	Fresh bool
	Rerun bool
	// AllowDirty runs next to uncommitted changes.
	AllowDirty bool
	// OnLimit is --on-limit ("": limits.on_limit).
	OnLimit string
	// Wait is --checkpoint-wait, when WaitSet.
	Wait    time.Duration
	WaitSet bool
	// BudgetUSD overrides budget.usd for a new run when BudgetUSDSet.
	BudgetUSD    float64
	BudgetUSDSet bool
}

// Options readies a local run of phase ph, journaled in j (its observer,
// and how answers reach it, are the caller's): the agents, checked and
// wrapped with the project's secrets; a resumed run's agent; the schedule,
// budget, guard, usage-limit policy and git settings of the config.
func (p *Phase) Options(ctx context.Context, repo *gitx.Repo, cfg *config.Config, ph *plan.Phase, j journal.Journal) (runner.Options, error) {
	onLimit, fallback, err := OnLimit(cfg, p.OnLimit)
	if err != nil {
		return runner.Options{}, err
	}
	// A resumed run keeps the agent it started with.
	agentName, err := p.resumeAgent(j, ph)
	if err != nil {
		return runner.Options{}, err
	}
	agents, err := phaseAgents(ctx, p.Stderr, cfg, agentName, p.Fixed, fallback, p.Fixed == nil)
	if err != nil {
		return runner.Options{}, err
	}
	agents.Budget = Budget(cfg, agents.Prices, agents.Ladder, func() *pricing.Usage {
		u, _ := ExecutorTaskUsage(j) // the journal this run writes holds the earlier runs too
		return u
	}, p.BudgetUSD, p.BudgetUSDSet)
	agents.Guard, agents.Context, agents.OnLimit = LoopGuard(cfg), ContextLimits(cfg), onLimit
	return runner.Options{
		Repo:    repo,
		Phase:   ph,
		Journal: journalFaults(journal.Redacting(j, SecretsOf(cfg).Red)),
		Schedule: runner.Schedule{
			MaxConcurrent: cfg.MaxConcurrent(),
			Dynamic:       cfg.Dynamic(),
			Fresh:         p.Fresh,
			Rerun:         p.Rerun,
			Verify:        cfg.Workflow.Verifier,
		},
		Agents: agents,
		Human:  runner.Human{Wait: CheckpointWait(cfg, p.WaitSet, p.Wait), AutoAnswer: p.Yes},
		Git: integration.Git{
			Worktrees:    cfg.Workflow.UseWorktrees,
			WorktreeRoot: WorktreeRoot(cfg, repo.Root),
			Branching:    cfg.Git.BranchingStrategy,
			AllowDirty:   p.AllowDirty,
			Setup:        WorktreeSetup(cfg),
			GateCommand:  cfg.Gates.PostMergeCommand,
		},
	}, nil
}

// resumeAgent is the agent to run: the one the phase's unfinished run
// started with (a resume never switches agents under a run's feet), else
// Agent. A different Agent for a run to resume is refused.
func (p *Phase) resumeAgent(j journal.Journal, ph *plan.Phase) (string, error) {
	if p.Fresh || p.Fixed != nil {
		return p.Agent, nil
	}
	run, ok, err := j.LatestRun(ph.Dir)
	if err != nil || !ok || !run.Finished.IsZero() {
		return p.Agent, err
	}
	eng, err := replay.Run(j, run)
	if err != nil {
		return "", err
	}
	snap := eng.Snapshot()
	if snap.AutoAnswer != p.Yes {
		was := "without --yes"
		if snap.AutoAnswer {
			was = "with --yes"
		}
		fmt.Fprintf(p.Stderr, "hive: run %d started %s and goes on so (start a new run with --fresh to change it)\n", run.ID, was)
	}
	started := snap.Agent
	switch {
	case started == "" || started == p.Agent:
		return p.Agent, nil
	case p.Agent == "":
		return started, nil
	}
	return "", exit.Errorf(exit.Usage, "run %d of phase %s started with --agent %s; resume it with --agent %s, or start a new run with --agent %s --fresh",
		run.ID, ph.Number, started, started, p.Agent)
}

// TemporalPhase readies the work of a Temporal run of phase ph in the
// repository: the configured executor agent (checked, its secrets kept out
// of its logs, the checks said on w); the shared tree, or with remote a
// worktree per plan, shared through that git remote.
func TemporalPhase(ctx context.Context, w io.Writer, repo *gitx.Repo, cfg *config.Config, ph *plan.Phase, agentName, remote string) (runner.Options, error) {
	// The agent a run switched by a usage limit starts (limits.on_limit
	// fallback), where this worker's config names one.
	var fallback agent.Launcher
	if _, ok := cfg.Models[config.FallbackRole]; ok {
		l, err := Launcher("", cfg, config.FallbackRole)
		if err != nil {
			return runner.Options{}, err
		}
		fallback = l
	}
	agents, err := phaseAgents(ctx, w, cfg, agentName, nil, fallback, false)
	if err != nil {
		return runner.Options{}, err
	}
	var git integration.Git
	if remote != "" {
		git = integration.Git{
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
		Agents:   agents,
	}, nil
}

// phaseAgents are the agents of a phase run: the executor (agentName's, or
// fixed), the roles the config asks for (the resolver, the verifier) and
// the fallback at a usage limit; checked first unless fixed (with the
// fallback when checkFallback), then wrapped with the project's secrets,
// which never reach logs or the journal; with the config's stall timeout,
// retries, prices and the executor's model ladder.
func phaseAgents(ctx context.Context, w io.Writer, cfg *config.Config, agentName string, fixed, fallback agent.Launcher, checkFallback bool) (runner.Agents, error) {
	launcher := fixed
	if launcher == nil {
		var err error
		if launcher, err = Launcher(agentName, cfg, "executor"); err != nil {
			return runner.Agents{}, err
		}
	}
	roles, err := PhaseRoles(agentName, cfg, fixed)
	if err != nil {
		return runner.Agents{}, err
	}
	if fixed == nil { // the demo checks its own agent before it makes its repository
		checked := maps.Clone(roles)
		if fallback != nil && checkFallback {
			if checked == nil {
				checked = map[string]agent.Launcher{}
			}
			checked[config.FallbackRole] = fallback // found missing now, not at the limit
		}
		if err := Preflight(ctx, w, cfg.Secrets.Env, launcher, checked); err != nil {
			return runner.Agents{}, err
		}
	}
	sec := SecretsOf(cfg)
	sec.WrapAll(roles)
	return runner.Agents{
		Launcher: sec.Wrap(launcher),
		Roles:    roles,
		Team:     cfg.TeamMode(),
		Stall:    cfg.Timeouts.Stall,
		Retries:  cfg.Retries.Agent,
		Prices:   Prices(cfg),
		Ladder:   Ladder(cfg, "executor", launcher.Name()),
		Fallback: sec.Wrap(fallback),
	}, nil
}
