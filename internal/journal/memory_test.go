package journal_test

import (
	"testing"

	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/testsupport/journaltest"
)

// The tests' in-memory journal keeps the contract SQLite keeps: other
// packages' tests that use it test what hive does with the durable one.
func TestMemoryContract(t *testing.T) {
	journal.Contract(t, func(*testing.T) journal.Journal { return journaltest.NewMemory() })
	journal.AppendAllContract(t, journaltest.NewMemory(), "phase")
}

func TestRedactingContract(t *testing.T) {
	journal.Contract(t, func(*testing.T) journal.Journal {
		return journal.Redacting(journaltest.NewMemory(), redact.New("never-stored-value"))
	})
}
