// Package tui is hive's terminal screens: execute-phase's dashboard, a
// bubbletea Model that renders engine snapshots (the phase as waves, each
// plan's state, progress, tokens and cost, the checkpoint queue in seed
// 000's display format, a log pane), and hive run's pipeline screen. Both
// ask their questions in one answer box (answer.go), so a question reads
// and answers the same on both, and turn key presses into answers on the
// runner's channel. They only read snapshots and send answers: they never
// touch the journal, git or agents, and the engines know nothing of them.
// View is pure (the clock arrives as a message), so screens are golden.
package tui
