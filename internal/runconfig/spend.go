package runconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/roleplan"
	"github.com/hivectl/hive/internal/work"
	"github.com/hivectl/hive/internal/workflows"
)

// prices is the price table of a project: the built-in list prices with
// the config's "pricing" entries over them.
func Prices(cfg *config.Config) pricing.Table {
	over := pricing.Table{}
	for model, p := range cfg.Pricing {
		over[model] = pricing.Price{Input: p.Input, Output: p.Output, CacheWrite: p.CacheWrite, CacheRead: p.CacheRead}
	}
	return pricing.Defaults().With(over)
}

// ladder is the model ladder of a role played by cli (--agent may name
// another CLI than the config, whose model then means nothing).
func Ladder(cfg *config.Config, role, cli string) []string {
	m, _ := cfg.ModelWhy(role)
	if cli != "" && cli != m.CLI {
		return pricing.Ladder(cli, "", nil)
	}
	return pricing.Ladder(m.CLI, m.Model, m.Ladder)
}

// budget is what a new run may spend: --budget-usd over budget.usd, with
// the config's token and per-plan ceilings, and the estimate of a task on
// each rung of the executor's ladder: what a task used in this project's
// earlier runs (history, read only when a budget needs it), else the size
// heuristic, priced on each rung.
func Budget(cfg *config.Config, tab pricing.Table, rungs []string, history func() *pricing.Usage, usd float64, usdSet bool) phase.Budget {
	b := phase.Budget{Ceilings: work.Ceilings{USD: cfg.Budget.USD, Tokens: int64(cfg.Budget.Tokens)}, PlanUSD: cfg.Budget.PlanUSD}
	if usdSet {
		b.USD = usd
	}
	if len(rungs) > 0 && (b.USD > 0 || b.PlanUSD > 0) {
		task := pricing.TaskUsage
		if h := history(); h != nil {
			task = *h
		}
		b.TaskUSD = tab.Estimate(rungs, task)
	}
	return b
}

// taskHistory is what one task of this project has used on average in the
// phase runs journaled so far: the executors' tokens (every turn and
// request, continuations included) over the tasks they reported done. It
// is nil before any task is done, or when the journal cannot be read (the
// heuristic then stands in: an estimate is no reason to refuse a run).
func TaskHistory(root string) *pricing.Usage {
	path := JournalPath(root)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	j, err := journal.Open(path)
	if err != nil {
		return nil
	}
	defer j.Close()
	u, err := ExecutorTaskUsage(j)
	if err != nil {
		return nil
	}
	return u
}

// ExecutorTaskUsage averages the executors' usage over the tasks done in
// every run of j.
func ExecutorTaskUsage(j journal.Journal) (*pricing.Usage, error) {
	runs, err := j.Runs()
	if err != nil {
		return nil, err
	}
	var sum pricing.Usage
	tasks := map[string]bool{} // run/plan/task
	for _, run := range runs {
		roles := map[string]string{} // plan/attempt → role
		err := j.Each(run.ID, func(rec journal.Record) error {
			switch phase.EventType(rec.Type) {
			case phase.EvAgentStarted, phase.EvUsage, phase.EvSpend, phase.EvProgress:
			default:
				return nil
			}
			var ev phase.Event
			if err := json.Unmarshal(rec.Payload, &ev); err != nil {
				return err
			}
			session := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt)
			switch {
			case ev.Type == phase.EvAgentStarted:
				roles[session] = ev.Role
			case ev.Type == phase.EvProgress:
				if ev.Task > 0 && ev.Plan != phase.VerifyID {
					tasks[fmt.Sprintf("%d/%s/%d", run.ID, ev.Plan, ev.Task)] = true
				}
			case ev.Plan != phase.VerifyID && roles[session] == "":
				sum.Input += ev.InputTokens
				sum.Output += ev.OutputTokens
				sum.CacheRead += ev.CacheReadTokens
				sum.CacheWrite += ev.CacheWriteTokens
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	n := int64(len(tasks))
	if n == 0 || sum.Total() == 0 {
		return nil, nil
	}
	return &pricing.Usage{Input: sum.Input / n, Output: sum.Output / n, CacheRead: sum.CacheRead / n, CacheWrite: sum.CacheWrite / n}, nil
}

// loopGuard is the config's tuning of the loop guard.
func LoopGuard(cfg *config.Config) work.LoopGuard {
	g := cfg.LoopGuard
	return work.LoopGuard{WarnRepeat: g.WarnRepeat, StopRepeat: g.StopRepeat, MaxCalls: g.MaxCalls}
}

// contextLimits are context.* for the engine: when a live session hands
// over to a fresh one.
func ContextLimits(cfg *config.Config) phase.ContextLimits {
	c := cfg.Context
	return phase.ContextLimits{HandoffPercent: c.HandoffPercent, HandoffTokens: int64(c.HandoffTokens), Window: int64(c.Window), NotesWait: c.NotesWait}
}

// roleBudget is what a new hive run may spend: the run's ceilings of run
// (--budget-usd over budget.usd, budget.tokens), budget.roles, and each
// role's estimate of a session on each rung of its ladder: what the role
// used per session in this project's earlier runs (history, read only
// when a budget needs it), else the size of one task.
func RoleBudget(cfg *config.Config, run phase.Budget, tab pricing.Table, ladders map[string][]string, history func() map[string]pricing.Usage) (roleplan.Budget, error) {
	b := roleplan.Budget{Ceilings: work.Ceilings{USD: run.USD, Tokens: run.Tokens}}
	for role, usd := range cfg.Budget.Roles {
		if !slices.Contains(workflows.Roles, role) {
			return b, fmt.Errorf("budget.roles.%s: no such role of hive run (roles: %s)", role, strings.Join(workflows.Roles, ", "))
		}
		if usd > 0 {
			if b.Roles == nil {
				b.Roles = map[string]float64{}
			}
			b.Roles[role] = usd
		}
	}
	if b.USD <= 0 && len(b.Roles) == 0 {
		return b, nil
	}
	past := history()
	b.Estimates = map[string][]float64{}
	for _, role := range workflows.Roles {
		u, ok := past[role]
		if !ok {
			u = pricing.TaskUsage
		}
		if len(ladders[role]) > 0 {
			b.Estimates[role] = tab.Estimate(ladders[role], u)
		}
	}
	return b, nil
}

// roleHistory is what one session of each role of hive run used on average
// in the runs journaled in j (the implementers' phase is the executors',
// see taskHistory). A journal that cannot be read is no history.
func RoleHistory(j journal.Journal) map[string]pricing.Usage {
	runs, err := j.Runs()
	if err != nil {
		return nil
	}
	sum, sessions := map[string]pricing.Usage{}, map[string]int64{}
	for _, run := range runs {
		m, err := runjournal.Replay(j, run)
		if err != nil {
			continue
		}
		for _, job := range m.Snapshot().Jobs {
			s := job.Spend
			if job.Phase || job.Attempts == 0 || s.Tokens() == 0 {
				continue
			}
			u := sum[job.Role]
			u.Input += s.InputTokens
			u.Output += s.OutputTokens
			u.CacheRead += s.CacheReadTokens
			u.CacheWrite += s.CacheWriteTokens
			sum[job.Role], sessions[job.Role] = u, sessions[job.Role]+int64(job.Attempts)
		}
	}
	out := map[string]pricing.Usage{}
	for role, u := range sum {
		n := sessions[role]
		out[role] = pricing.Usage{Input: u.Input / n, Output: u.Output / n, CacheRead: u.CacheRead / n, CacheWrite: u.CacheWrite / n}
	}
	return out
}

// checkpointWait is how long a run without a terminal waits for `hive
// answer`: the flag when set, else timeouts.checkpoint_wait, whose default
// is 0 under CI (nobody answers a CI job).
func CheckpointWait(cfg *config.Config, set bool, flag time.Duration) time.Duration {
	if set {
		return flag
	}
	wait := cfg.Timeouts.CheckpointWait
	if os.Getenv("CI") == "true" && wait == config.Default().Timeouts.CheckpointWait {
		wait = 0
	}
	return wait
}

// OnLimit is what a run does at a usage limit: flag (--on-limit) when
// given, else limits.on_limit; with the agent it falls back to, which the
// policy fallback needs configured.
func OnLimit(cfg *config.Config, flag string) (work.OnLimit, agent.Launcher, error) {
	name, from := flag, "--on-limit"
	if name == "" {
		name, from = cfg.Limits.OnLimit, "limits.on_limit"
	}
	p, err := work.ParseOnLimit(name)
	if err != nil {
		return "", nil, exit.Errorf(exit.Usage, "%s: %v", from, err)
	}
	if p != work.OnLimitFallback {
		return p, nil, nil
	}
	if _, ok := cfg.Models[config.FallbackRole]; !ok {
		return "", nil, exit.Errorf(exit.Usage, `%s fallback: no agent to fall back to; add one to .hive/config.json, such as {"models": {"fallback": {"cli": "codex"}}}`, from)
	}
	l, err := Launcher("", cfg, config.FallbackRole)
	return p, l, err
}
