// Package replay rebuilds a phase run's engine from its journal (Run):
// every event stepped again in journal order, as a resume takes a run
// over and as hive status, attach and hive run's checks read one. The
// events' JSON is decoded in batches on every core while one goroutine
// steps the engine; a run a newer hive journaled is refused whole
// (phase.NewerError), never replayed into a state this hive cannot
// understand.
package replay
