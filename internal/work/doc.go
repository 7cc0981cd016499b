// Package work is the vocabulary that hive's two machines share: the
// engine, which executes a phase of plans, and the pipeline, which runs
// hive run's roles. It says what a turn of an agent spends, what a budget's
// ceilings are and how a human's answer raises them, how many turns a
// budget has room for while others are in flight, what an agent reports at
// the end of its work (HIVE_REPORT), and when an agent that repeats its
// tool calls is looping.
//
// Like the machines, it is pure: no I/O, no clock, no randomness. Its
// types are in the machines' journals and Temporal histories, so their
// JSON field names never change.
package work
