// Package pipeline decides the course of `hive run "objective"`: a workflow
// of roles (architect, implementers, comb, tester, reviewer, documenter)
// run one after another, where a role may challenge an earlier one (seed
// 003 Phase 1), ask for a decision (3.4), or find failing tests that go
// back to the implementer (3.5). Machine is a pure state machine like the
// engine: journaled events in, commands out, no clock, no I/O; the shell
// starts the agents, runs the phase of the architect's plans with the
// engine, lints, runs the tests and asks the human. Its events, commands,
// checkpoints and state are roleplan's, the vocabulary its hosts and the
// journal share.
package pipeline
