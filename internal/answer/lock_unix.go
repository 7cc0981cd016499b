//go:build unix

package answer

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes the exclusive lock that serialises answers across the
// processes that give them (hive answer, hive serve) for the repository at
// root. The caller releases it by calling the function returned.
func lockFile(root string) (func(), error) {
	dir := filepath.Join(root, ".hive")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("answer lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "answer.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("answer lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("answer lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the file drops the lock
}
