// Package runner is hive's imperative shell for a phase run: one loop that
// owns the engine, journals every event before the engine steps it, and
// hands each command the engine gives back to an Executor: agents (agent
// sessions and their watchdog), workspace (git: worktrees, spot-checks,
// merges, gates, verification, delivery), planningFiles (pending
// checkpoints, STATE.md and ROADMAP.md) and humanWaits (timers and the stop
// for a human). Executors report back through an Inbox as events. The loop
// decides nothing; decisions belong to the engine.
package runner
