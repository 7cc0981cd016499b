//go:build !faults

package runconfig

import "github.com/hivectl/hive/internal/journal"

// journalFaults is the tests' hook on the run's journal (faults.go, built
// with the faults tag): the journal itself in the product.
func journalFaults(j journal.Journal) journal.Journal { return j }
