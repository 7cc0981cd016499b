// Package tui is execute-phase's dashboard: a bubbletea Model that renders
// engine snapshots (the phase as waves, each plan's state, progress,
// tokens and cost, the checkpoint queue in seed 000's display format, a
// log pane), fed by an Observer of the runner, and the texts the plain
// output and hive status share with it (a checkpoint's title and action,
// the budget, a provider limit's wait, the log's lines, what a stopped run
// says). It asks its questions in tuikit's answer box, as hive run's
// pipeline screen (pipelinescreen) does, so a question reads and answers
// the same on both, and turns key presses into answers on the runner's
// channel. It only reads snapshots and sends answers: it never touches the
// journal, git or agents, and the engine knows nothing of it. View is pure
// (the clock arrives as a message), so screens are golden.
package tui
