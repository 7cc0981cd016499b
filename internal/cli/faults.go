package cli

import "github.com/hivectl/hive/internal/journal"

// journalFaults wraps the run's journal: a test's hook (a full disk), the
// journal itself in the product.
var journalFaults = func(j journal.Journal) journal.Journal { return j }
