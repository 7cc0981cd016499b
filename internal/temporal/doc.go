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
// A `hive run` is a workflow of its own (PipelineWorkflow): its pipeline
// machine runs on one worker at a time, as a heartbeating activity that
// journals in the project's folder as a local run does; when that worker
// dies, the next one takes the run over from the journal. Each record
// it journals is handed to the workflow before the driver acts on it
// (runjournal.go), so the history holds the run and a follower reads it
// there (WorkflowJournal); answers come in as signals (the inbox), which
// the driver journals. A run whose work is on a git remote runs on the
// repository's queue (PipelineInput.Anywhere): when no worker of its
// folder takes it up, one of any clone does, from the workflow's copy of
// the journal (Reconcile). Its
// implementers' phase is a dispatching run workflow whose Dispatch names
// the tree and phase (Where), so that one pool of workers serves the
// phases of every run (NewPhasesWorkers).
//
// This package holds the workflows and their contracts (names, inputs and
// outputs), and the activities that hand the work to hive's executors on
// `hive worker` processes; the CLI's --backend temporal builds on it.
package temporal
