package cli

import (
	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/pricing"
)

// prices is the price table of a project: the built-in list prices with
// the config's "pricing" entries over them.
func prices(cfg *config.Config) pricing.Table {
	over := pricing.Table{}
	for model, p := range cfg.Pricing {
		over[model] = pricing.Price{Input: p.Input, Output: p.Output, CacheWrite: p.CacheWrite, CacheRead: p.CacheRead}
	}
	return pricing.Defaults().With(over)
}

// ladder is the model ladder of a role played by cli (--agent may name
// another CLI than the config, whose model then means nothing).
func ladder(cfg *config.Config, role, cli string) []string {
	m, _ := cfg.ModelWhy(role)
	if cli != "" && cli != m.CLI {
		return pricing.Ladder(cli, "", nil)
	}
	return pricing.Ladder(m.CLI, m.Model, m.Ladder)
}

// budget is what a new run may spend: --budget-usd over budget.usd, with
// the config's token and per-plan ceilings, and the estimate of a task on
// each rung of the executor's ladder (the size heuristic priced).
func budget(cfg *config.Config, tab pricing.Table, rungs []string, usd float64, usdSet bool) engine.Budget {
	b := engine.Budget{USD: cfg.Budget.USD, Tokens: int64(cfg.Budget.Tokens), PlanUSD: cfg.Budget.PlanUSD}
	if usdSet {
		b.USD = usd
	}
	if len(rungs) > 0 && (b.USD > 0 || b.PlanUSD > 0) {
		b.TaskUSD = tab.Estimate(rungs, pricing.TaskUsage)
	}
	return b
}

// loopGuard is the config's tuning of the loop guard.
func loopGuard(cfg *config.Config) engine.LoopGuard {
	g := cfg.LoopGuard
	return engine.LoopGuard{WarnRepeat: g.WarnRepeat, StopRepeat: g.StopRepeat, MaxCalls: g.MaxCalls}
}
