// Package pricing turns an agent turn's token usage into dollars: a table of
// per-million-token prices by model (input, output, cache write, cache read),
// matched by the model's name as the CLIs report it ("claude-sonnet-4-5",
// "sonnet", "gpt-5-mini"), overridable from config, and the downgrade ladder
// each CLI's models form (opus → sonnet → haiku), which a budget walks down
// when money runs short. It is pure: no I/O, no clock; the runner applies it
// to each turn as the turn ends, so that spend is computed by hive, not taken
// on trust from a CLI.
package pricing
