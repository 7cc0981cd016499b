//go:build unix

package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is returned when another hive process runs the same phase.
var ErrLocked = errors.New("phase is locked")

// lockPhase takes an exclusive lock on the phase for this process, so two
// hive processes never drive one run. The kernel drops the lock when the
// process dies, so a killed hive leaves nothing to clean up.
func lockPhase(root, phaseDir string) (release func(), err error) {
	dir := filepath.Join(root, ".hive", "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock folder: %w", err)
	}
	name := strings.NewReplacer("/", "_", "\\", "_").Replace(phaseDir) + ".lock"
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", phaseDir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
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
	return func() { f.Close() }, nil
}
