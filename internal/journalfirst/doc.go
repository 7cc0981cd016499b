// Package journalfirst is the loop a local host runs around a pure state
// machine, whichever machine it is (the engine of execute-phase, the
// pipeline of hive run): events arrive from the host's executors, each
// batch is appended to the run's journal in one durable write, and only
// then is the machine stepped with each event and its commands carried
// out. Persist, then act: a kill at any point leaves a journal whose
// replay rebuilds what was acted on, and never an act without its event.
//
// Other processes append to the same run (`hive answer`): the loop steps
// their records in the journal's order, between its own, so that the live
// order is the one a replay follows. The host owns its select loop (its
// timers, a terminal's answers) and the machine; the loop owns the queue,
// the journal's order and the stop that drains what ending agents still
// say.
package journalfirst
