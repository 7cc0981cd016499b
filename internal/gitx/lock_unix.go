//go:build unix

package gitx

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, polling so ctx can end the wait.
// The kernel drops the lock when the process dies.
func lockFile(ctx context.Context, f *os.File) error {
	return pollLock(ctx, f.Name(), func() (bool, error) {
		for {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			switch {
			case err == nil:
				return true, nil
			case errors.Is(err, syscall.EINTR):
				continue
			case errors.Is(err, syscall.EWOULDBLOCK):
				return false, nil
			default:
				return false, err
			}
		}
	})
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
