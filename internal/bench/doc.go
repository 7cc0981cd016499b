// Package bench measures hive side by side in one run on this machine: the
// makespan of dynamic scheduling against rigid waves and the lower bound on
// random DAGs (a virtual clock driving the pure engine), the orchestrator's
// own overhead with instant agents through the real runner, the checkpoint
// round trip and its token cost in team and standalone mode, how well the
// engine holds a budget over simulated runs with random budgets and
// per-turn costs, the time to resume from a journal of a million events,
// and peak memory with 64 live agents. `hive bench` prints its Report.
//
// Each measurement states its target, and the report says pass or miss; it
// never fakes a figure. Tests check that every row is there with sane values,
// never wall-clock times. The package must not be imported by the engine or
// the runner: it is a client of their public APIs only.
package bench
