//go:build unix

package runner

import (
	"os"
	"testing"
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
	release, err := lockPhase(root, dir)
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
	again, err := lockPhase(root, dir)
	if err != nil {
		t.Fatalf("lock after PhaseHolder: %v", err)
	}
	again()
}
