package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
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
// each rung of the executor's ladder: what a task used in this project's
// earlier runs (history, read only when a budget needs it), else the size
// heuristic, priced on each rung.
func budget(cfg *config.Config, tab pricing.Table, rungs []string, history func() *pricing.Usage, usd float64, usdSet bool) engine.Budget {
	b := engine.Budget{USD: cfg.Budget.USD, Tokens: int64(cfg.Budget.Tokens), PlanUSD: cfg.Budget.PlanUSD}
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
func taskHistory(root string) *pricing.Usage {
	path := journalPath(root)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	j, err := journal.Open(path)
	if err != nil {
		return nil
	}
	defer j.Close()
	u, err := executorTaskUsage(j)
	if err != nil {
		return nil
	}
	return u
}

// executorTaskUsage averages the executors' usage over the tasks done in
// every run of j.
func executorTaskUsage(j journal.Journal) (*pricing.Usage, error) {
	runs, err := j.Runs()
	if err != nil {
		return nil, err
	}
	var sum pricing.Usage
	tasks := map[string]bool{} // run/plan/task
	for _, run := range runs {
		roles := map[string]string{} // plan/attempt → role
		err := j.Each(run.ID, func(rec journal.Record) error {
			switch engine.EventType(rec.Type) {
			case engine.EvAgentStarted, engine.EvUsage, engine.EvSpend, engine.EvProgress:
			default:
				return nil
			}
			var ev engine.Event
			if err := json.Unmarshal(rec.Payload, &ev); err != nil {
				return err
			}
			session := fmt.Sprintf("%s/%d", ev.Plan, ev.Attempt)
			switch {
			case ev.Type == engine.EvAgentStarted:
				roles[session] = ev.Role
			case ev.Type == engine.EvProgress:
				if ev.Task > 0 && ev.Plan != engine.VerifyID {
					tasks[fmt.Sprintf("%d/%s/%d", run.ID, ev.Plan, ev.Task)] = true
				}
			case ev.Plan != engine.VerifyID && roles[session] == "":
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
func loopGuard(cfg *config.Config) engine.LoopGuard {
	g := cfg.LoopGuard
	return engine.LoopGuard{WarnRepeat: g.WarnRepeat, StopRepeat: g.StopRepeat, MaxCalls: g.MaxCalls}
}
