package cli

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/journal"
)

// withJournalFaults makes the journal behave like one on a full disk after
// HIVE_JOURNAL_FULL_AFTER appends, when that variable is set: the chaos
// tests use it, since a real full disk cannot be arranged in CI. Unset, the
// journal is returned as it is. TestMain installs it as journalFaults.
func withJournalFaults(j journal.Journal) journal.Journal {
	n, err := strconv.Atoi(os.Getenv("HIVE_JOURNAL_FULL_AFTER"))
	if err != nil || n < 0 {
		return j
	}
	return &fullDisk{Journal: j, left: int64(n)}
}

type fullDisk struct {
	journal.Journal
	left int64
}

func (f *fullDisk) Append(run int64, typ string, t time.Time, payload []byte) (int64, error) {
	if atomic.AddInt64(&f.left, -1) < 0 {
		return 0, fmt.Errorf("append to the journal: %w", syscall.ENOSPC)
	}
	return f.Journal.Append(run, typ, t, payload)
}

// crashAt kills hive at the crash point HIVE_CRASH_AT names ("merge:01-02",
// "write:.pending-checkpoint-01-01.json", "agent:verify/1", "agent:comb").
func crashAt(point string, ids ...string) {
	at := os.Getenv("HIVE_CRASH_AT")
	for _, id := range ids {
		if id != "" && at == point+":"+id {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}
