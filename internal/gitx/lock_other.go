//go:build !unix

package gitx

import (
	"context"
	"os"
)

// lockFile has no cross-process lock outside unix: only the in-process lock
// of Locked applies.
func lockFile(ctx context.Context, f *os.File) error { return nil }

func unlockFile(f *os.File) {}
