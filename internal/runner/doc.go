// Package runner is hive's imperative shell for a phase run: it hosts the
// engine in the journal-first loop both machines share (package
// journalfirst: every event journaled before the engine steps it), and
// hands each command the engine gives back to an Executor: the agents'
// sessions and their watchdog (package sessions), the workspace's git
// work (package workspace: worktrees, spot-checks, merges, gates,
// verification, delivery), the planning files (package planning: pending
// checkpoints, STATE.md and ROADMAP.md) and humanWaits (timers and the
// stop for a human). Executors report back through an Inbox as events.
// It composes a run (the agents' prompts, package prompt; where they
// work), resumes one from its journal (package replay), and, as a Worker,
// carries out a distributed backend's commands without the loop. The loop
// decides nothing; decisions belong to the engine.
package runner
