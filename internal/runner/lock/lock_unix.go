//go:build unix

package lock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrLocked is returned when another hive process runs the same phase.
var ErrLocked = errors.New("phase is locked")

// lockName is the file in .hive/locks/ that locks the phase in phaseDir.
func lockName(phaseDir string) string {
	return strings.NewReplacer("/", "_", "\\", "_").Replace(phaseDir) + ".lock"
}

// Phase takes an exclusive lock on the phase for this process, so two
// hive processes never drive one run. The kernel drops the lock when the
// process dies, so a killed hive leaves nothing to clean up.
func Phase(root, phaseDir string) (release func(), err error) {
	dir := filepath.Join(root, ".hive", "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName(phaseDir)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", phaseDir, err)
	}
	if err := flockOrDeadHolder(f); err != nil {
		holder, _ := os.ReadFile(f.Name())
		f.Close()
		pid := string(bytes.TrimSpace(holder))
		if pid == "" {
			pid = "unknown"
		}
		return nil, fmt.Errorf("%w: another hive process (pid %s) is running %s; wait for it to end or stop it, then run again", ErrLocked, pid, phaseDir)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	// Unlock before closing: a child forked by another goroutine holds a
	// copy of every descriptor until it execs, and the lock would last as
	// long as that copy (a test running ten runs in one busy process saw
	// its next run refused as locked by itself).
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// deadHolderWait is how long a lock whose recorded holder is dead may stay
// taken: a hive killed with SIGKILL while it forked a child (git, an
// agent) leaves the lock with that child until it execs, a moment later.
const deadHolderWait = 5 * time.Second

// flockOrDeadHolder takes f's exclusive lock without waiting, except for a
// holder that is already dead: then the lock is about to be dropped (see
// deadHolderWait), and a hive started at once after a kill -9 must not be
// refused for it.
func flockOrDeadHolder(f *os.File) error {
	deadline := time.Now().Add(deadHolderWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		data, _ := os.ReadFile(f.Name())
		pid, perr := strconv.Atoi(string(bytes.TrimSpace(data)))
		if perr != nil || pid <= 0 || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return err // a live holder, or none recorded: refused at once
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PhaseHolder reports whether a live hive process runs the phase in folder
// phaseDir (it holds the phase's lock, as runner.Run does from start to
// end), and that process's pid as the lock file records it (0 when
// unreadable). It is read-only: it never creates the lock file, and it
// tests the lock with a shared lock taken without waiting and dropped at
// once, so a hive starting at that very instant is the only one that could
// find the phase taken.
func PhaseHolder(root, phaseDir string) (pid int, held bool) {
	f, err := os.Open(filepath.Join(root, ".hive", "locks", lockName(phaseDir)))
	if err != nil {
		return 0, false // no run ever locked it here
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		return 0, false // closing the file drops the shared lock
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		return 0, false
	}
	data, _ := io.ReadAll(f)
	pid, _ = strconv.Atoi(string(bytes.TrimSpace(data)))
	return pid, true
}

// Pipeline takes the lock of hive run's runs (one run at a time drives
// a repository's pipeline journal), as Phase does for a phase.
func Pipeline(root string) (release func(), err error) {
	release, err = Phase(root, pipelineLock)
	if errors.Is(err, ErrLocked) {
		pid, _ := PipelineHolder(root)
		return nil, fmt.Errorf("%w: another hive process (pid %d) is driving hive run's run here; wait for it to end (hive status shows it) or stop it, then run again", ErrLocked, pid)
	}
	return release, err
}

// PipelineHolder is PhaseHolder for hive run's runs.
func PipelineHolder(root string) (pid int, held bool) { return PhaseHolder(root, pipelineLock) }

// pipelineLock names hive run's lock; no phase folder has this name.
const pipelineLock = "hive-run"
