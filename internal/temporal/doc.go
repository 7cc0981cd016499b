// Package temporal runs hive's engine as a Temporal workflow: the
// distributed backend (DESIGN.md, "Distributed mode"). The workflow is the
// engine itself, unchanged: events arrive as signals (a runner's results,
// a human's answers), each is stepped in the order Temporal's history
// records it, and the engine's commands are kept in the workflow's
// transcript for whoever executes them; the state is a query. Temporal's
// history replaces the SQLite journal: a workflow replayed on any worker
// rebuilds the same engine, which is why the engine keeps Temporal's rules
// (no I/O, no clock, no randomness: time comes in the events).
//
// The engine version is recorded in the history with GetVersion, so a
// history written by a newer engine is refused by name rather than
// replayed into a different state, and histories recorded by earlier
// versions (testdata/histories) must replay on today's; a long run
// continues as new with the engine's exported state, so its history stays
// short.
//
// This package holds the workflow and its contract (names, inputs and
// outputs). Carrying the commands out as activities on `hive worker`
// processes, and the CLI's --backend temporal, build on it.
package temporal
