//go:build faults

package runconfig

import "github.com/hivectl/hive/internal/journal"

// JournalFaults wraps the run's journal: a test's hook (a full disk),
// built only with the faults tag (make test).
var JournalFaults = func(j journal.Journal) journal.Journal { return j }

func journalFaults(j journal.Journal) journal.Journal { return JournalFaults(j) }
