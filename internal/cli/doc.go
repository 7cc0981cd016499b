// Package cli is hive's command line: one cobra command per file, each with
// an options struct and a run function that tests can call. It parses flags,
// loads plans and config, wires the runner to its adapters and prints; it
// holds no scheduling logic.
package cli
