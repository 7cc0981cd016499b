// Package budgetbench is hive bench's budget group: it drives the real
// engine through 200 simulated runs on a virtual clock, with random
// phases, budgets, model ladders and per-turn costs, concurrent agents,
// checkpoints, merge conflicts and a verifier, and reports how well the
// budget held: the runs that overspent by more than the one turn the
// engine cannot stop (goal 0), the mean share of the budget used, and how
// many runs downgraded a model. No agent or process runs: the simulated
// agents bill their turns as a provider would.
package budgetbench
