// Package handoff writes and reads HANDOFF.md, the note a paused phase leaves
// for the run that resumes it, in the shape of seed 001's checkpoint and
// rehydrate skills: which plans are done, which were in progress (with the
// executor that owned each and where hive's checks of it stood) and which
// were not started, so that a resumed phase neither redoes a plan nor runs a
// check that already passed.
//
// Render and Parse are pure text transforms: no I/O and no clock (the time
// arrives in Handoff.Time). The file is a view: the journal is the truth, and
// the engine warns when a resumed pause is stale. The package imports only the
// standard library.
package handoff
