// Package sim is the simulated coding agent behind `hive __sim`.
//
// It plays the part of Claude Code in tests and in `hive demo`. Main reads
// the sim's settings from the environment (package faults) and runs one
// session in the current directory (package session), speaking Claude
// Code's stream-json dialect (package stream); its first prompt goes to the
// part it asks for: a role prompt of hive run, or the role comb or
// verifier, to package roleplay; any other prompt to package executor,
// which really carries out the GSD plan it names and answers the session's
// later messages. HIVE_SIM_MODE=instant or checkpoint makes it the bench
// agent of package benchagent instead.
//
// What the sim must not do: write outside the repository or through a symlink
// that leaves it, write into .git, run a shell (git is executed with argument
// lists only), touch planning files other than its own SUMMARY.md (STATE.md and
// ROADMAP.md belong to hive), push, or use the network. Several sims share one
// working tree in tests, so every git command is retried on lock contention and
// commits name their paths explicitly (package repo).
package sim
