// Package bench is `hive bench`: it measures hive side by side in one run
// on this machine, group after group, and gathers their rows in a Report
// (internal/bench/report). Each group is a package of its own, a client of
// the engine's and the runner's public APIs: makespanbench (dynamic
// scheduling against rigid waves and the lower bound on random DAGs, on a
// virtual clock), runnerbench (the orchestrator's own overhead with
// instant agents through the real runner, the checkpoint round trip in
// team and standalone mode, context rollover, the time to resume from a
// journal of a million events, and peak memory with 64 live agents),
// budgetbench (how well the engine holds a budget over simulated runs with
// random budgets and per-turn costs), pipelinebench (hive run's routing on
// fixture objectives) and temporalbench (what the Temporal backend costs);
// the tokens group is cmd/hive-dev's (internal/devbench). This package
// lists them in the order they run and print, and runs the chosen ones.
//
// Each measurement states its target, and the report says pass or miss; it
// never fakes a figure. Tests check that every row is there with sane values,
// never wall-clock times. No bench package may be imported by the engine or
// the runner: they are clients of their public APIs only.
package bench
