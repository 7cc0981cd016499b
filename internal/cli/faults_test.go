package cli

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hivectl/hive/internal/journal"
)

// withJournalFaults makes the journal behave like one on a full disk after
// HIVE_JOURNAL_FULL_AFTER appends, when that variable is set: the chaos
// tests use it, since a real full disk cannot be arranged in CI. Unset, the
// journal is returned as it is. TestMain installs it as runconfig.JournalFaults.
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
// "write:.pending-checkpoint-01-01.json", "agent:verify/1", "agent:comb"),
// and counts the point as a durable step.
func crashAt(point string, ids ...string) {
	crashStep()
	at := os.Getenv("HIVE_CRASH_AT")
	for _, id := range ids {
		if id != "" && at == point+":"+id {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}

// Durable steps: each journal append, file write, git command and named
// crash point counts one. HIVE_CRASH_STEP=N kills hive at its Nth;
// HIVE_CRASH_STEPS_FILE gets the count when hive ends (TestMain writes it).
var (
	crashSteps  atomic.Int64
	crashTarget = sync.OnceValue(func() int64 {
		n, _ := strconv.ParseInt(os.Getenv("HIVE_CRASH_STEP"), 10, 64)
		return n
	})
)

func crashStep() {
	if n := crashSteps.Add(1); n == crashTarget() {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
}

// writeCrashSteps records how many durable steps this hive process took.
func writeCrashSteps() {
	if f := os.Getenv("HIVE_CRASH_STEPS_FILE"); f != "" {
		os.WriteFile(f, []byte(strconv.FormatInt(crashSteps.Load(), 10)), 0o644)
	}
}
