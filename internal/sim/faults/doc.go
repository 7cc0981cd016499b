// Package faults is the sim's configuration, read from its environment:
// the faults to inject, and the delay, attempt, role and context curve
// they go with (Settings, LoadSettings).
//
// Faults can be injected per plan (crash, hang, garbage, slow, nosummary,
// selfcheck-fail, fail, limit, ignore-rollover, and comb-fail for the
// resolver) or per role of hive run, keyed by its job (challenge,
// needs-input, blocked, blocker, badreport, empty, warn, block,
// finds-bug, uncommitted), each at a task and in an attempt when asked,
// through HIVE_SIM_FAULTS or the JSON file named by HIVE_SIM_FILE, so
// engine and runner tests can make any plan misbehave in a real child
// process.
package faults
