// Package prompt writes what a phase's agents are told: the executor's,
// the resolver's and the verifier's prompts, from the embedded templates
// or, for the executor, the project's own (.hive/agents/executor.md), with
// what the run knows of the plan (its answered checkpoints, a
// continuation's notes, a failing gate to fix); and the words of the
// messages hive sends a live agent (an answer, a ping, a loop, a
// rollover).
package prompt
