// Package runnerbench is hive bench's groups that measure the orchestrator
// itself through the real runner, the SQLite journal and sim agents run as
// real processes, on projects generated from random DAGs
// (internal/bench/project): overhead (hive's cost per plan with instant
// agents, beyond spawning them, and the engine's events per second),
// checkpoint (the human-verify round trip in team and standalone mode),
// context (a long plan in one live session, with hive's context rollover
// and without), resume (the time to rebuild a run from a journal of a
// million events) and memory (hive's peak RSS with 64 live agents,
// measured in a fresh `hive bench` child). RunPhase, the run these groups
// share, is also how the temporal group and cmd/hive-dev's groups run a
// phase locally.
package runnerbench
