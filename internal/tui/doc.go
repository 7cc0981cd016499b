// Package tui is hive's terminal dashboard for execute-phase: a bubbletea
// Model that renders engine snapshots (the phase as waves, each plan's
// state, progress, tokens and cost, the checkpoint queue in seed 000's
// display format, a log pane) and turns key presses into answers on the
// runner's Answers channel. It only reads snapshots and sends answers: it
// never touches the journal, git or agents, and the engine knows nothing of
// it. View is pure (the clock arrives as a message), so screens are golden.
package tui
