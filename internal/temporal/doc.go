// Package temporal runs hive's two machines as Temporal workflow code: the
// distributed backend (DESIGN.md, "Distributed mode"). RunWorkflow steps
// the engine (a phase's run), ObjectiveWorkflow the pipeline machine (a
// hive run); each is the machine itself, unchanged: events arrive as
// signals and activity results, each stepped in the order Temporal's
// history records it; the machine's commands are activities on `hive
// worker` processes (Executor, ObjectiveExecutor), its wakes timers; the
// state and answers are queries. The phase of a hive run's implementers is
// a RunWorkflow started as a child of the run's ObjectiveWorkflow, the
// messages between the two machines signals (phase_child.go). The history is the record: a workflow
// replayed on any worker rebuilds the same machine, which is why the
// machines keep Temporal's rules (no I/O, no clock, no randomness: time
// comes in the events).
//
// Versions are recorded in the history with GetVersion, so a history
// written by a newer hive is refused by name rather than replayed into a
// different state, and histories recorded by earlier versions
// (testdata/histories) must replay on today's. A long run continues as new
// (Limits), carrying the engine's exported state or the pipeline's events.
// What a lost worker means is decided here, in workflow code: a session
// whose heartbeat stopped is an agent that exited, which the machine starts
// again elsewhere.
//
// This package holds the workflows, their contracts (names, inputs and
// outputs) and the activities that hand the work to hive's executors; the
// client side is internal/temporalhost, the workers' executors
// internal/runworker.
package temporal
