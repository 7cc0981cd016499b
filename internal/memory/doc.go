// Package memory is a project's memory across hive run's runs: what went
// wrong (failing tests, failed builds, challenges, review findings), which
// role it concerned and the files involved, the decisions taken, and each
// role's figures per run, in .hive/memory.db (SQLite, migrations
// versioned). It is filled from a run's journal when the run ends and can
// be rebuilt from the journals alone, so it never holds more than the
// journals prove. Before a role starts, Warnings picks the few lessons
// that recurred for that role, ranked deterministically, within a byte
// bound, for its prompt.
package memory
