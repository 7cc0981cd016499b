// Package engine is hive's scheduler and bookkeeper: a deterministic state
// machine in the style of etcd raft's RawNode and of a Temporal workflow.
//
// The caller feeds it Events (an agent started, printed PROGRESS, reported
// PLAN COMPLETE, exited; a spot-check came back; the run resumed) and gets
// back Commands (start an agent, stop one, run a spot-check, a plan changed
// state, the run finished), both of its vocabulary, package phase. The
// caller must append every Event to the journal before it executes the
// Commands that Step returned for it; replaying the journal through a
// fresh Engine then rebuilds the same state.
//
// The engine moves plans between states; its sub-machines, each a package
// under it with one job and its own state, keep the rest: the dependency
// graph (sched), each plan's record (plans), the checkpoints asked
// (checkpoints), the budget (budget), worktree mode's merges (integrate),
// context rollovers (rollover), the phase verification (verify), the
// provider's limits (limits), a pause (pause), when to stop for a human
// (attend) and the run's active time (active).
//
// The engine does no I/O, starts no goroutines, never reads the clock (time
// arrives inside events) and never lets map iteration order reach a decision,
// so the same events always give the same commands. It and its sub-machines
// may import only the standard library, its vocabulary (internal/phase) and
// internal/work; a test enforces that.
package engine
