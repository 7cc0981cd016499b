// Package temporalbench is hive bench's temporal group: what the Temporal
// backend costs. It runs a 200-plan phase of instant sim agents with the
// local runner and then through a Temporal dev server (the temporal CLI's,
// in memory on loopback) with four workers in this process, then 20 quick
// `hive run`s with the local host and through four `hive worker`
// processes, and reports the makespans, their ratios and the overhead per
// plan and per run. Without the temporal CLI (make temporal) it reports
// the group skipped.
package temporalbench
