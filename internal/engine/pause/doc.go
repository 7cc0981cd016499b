// Package pause is where a pause of the whole team stands (seed 001's
// checkpoint, EvPause): asked for, then pausing until no agent runs, then
// paused (CmdPaused) until a resume, which warns when the pause is old.
// The engine brings each agent to its boundary.
package pause
