// Package runner is hive's imperative shell: one loop that owns the engine,
// journals every event before acting on it, and carries out the engine's
// commands through the agent, git and file-system adapters. It is the only
// package that composes I/O packages; decisions belong to the engine.
package runner
