//go:build unix

package lock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// PhaseHolder sees the lock Run takes, and only while it is held; it never
// creates a lock file.
func TestPhaseHolder(t *testing.T) {
	root := t.TempDir()
	const dir = ".planning/phases/01-core"
	if _, held := PhaseHolder(root, dir); held {
		t.Fatal("held before any lock")
	}
	if _, err := os.Stat(root + "/.hive"); !os.IsNotExist(err) {
		t.Fatalf("PhaseHolder created .hive/ (%v)", err)
	}
	release, err := Phase(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	pid, held := PhaseHolder(root, dir)
	if !held || pid != os.Getpid() {
		t.Errorf("PhaseHolder = %d, %v while locked; want %d, true", pid, held, os.Getpid())
	}
	if _, held := PhaseHolder(root, ".planning/phases/02-other"); held {
		t.Error("another phase reads as held")
	}
	// Testing the lock must not take it: the holder keeps it, and once it
	// is released a new run can lock the phase.
	release()
	if _, held := PhaseHolder(root, dir); held {
		t.Error("held after release")
	}
	again, err := Phase(root, dir)
	if err != nil {
		t.Fatalf("lock after PhaseHolder: %v", err)
	}
	again()
}

// A lock that outlives its dead holder for a moment (a hive killed while it
// forked a child, which holds the lock until it execs) does not refuse the
// next hive: it waits for the lock to drop. A live holder is refused at
// once.
func TestLockOfADeadHolder(t *testing.T) {
	root := t.TempDir()
	release, err := Phase(root, "phase")
	if err != nil {
		t.Fatal(err)
	}
	// The holder's pid as a dead process's: one that ran and was reaped.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, ".hive", "locks", lockName("phase"))
	if err := os.WriteFile(name, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
	}()
	again, err := Phase(root, "phase")
	if err != nil {
		t.Fatalf("the lock of a dead holder refused the next hive: %v", err)
	}
	// Now held by this live process: refused at once.
	start := time.Now()
	if _, err := Phase(root, "phase"); !errors.Is(err, ErrLocked) || time.Since(start) > time.Second {
		t.Errorf("a live holder's lock: %v after %v, want ErrLocked at once", err, time.Since(start))
	}
	again()
}
