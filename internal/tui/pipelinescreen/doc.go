// Package pipelinescreen is hive run's pipeline screen. View draws a run
// as seed 003 §4.4 does (the roles in order with their state, the
// implementers of the phase side by side, the challenges and fix loops on
// their edges, the decisions and the spend), for the live screen, hive
// report and the plain output alike; Model is the live bubbletea screen
// around it: the question of a role that asks, in tuikit's answer box as
// execute-phase's dashboard asks its own, the run's log, and the keys. It
// only reads pipeline snapshots and sends answers on the run's channel: it
// never touches the journal, git or agents, and the pipeline knows nothing
// of it. View is pure, so screens are golden.
package pipelinescreen
