package testsupport

import (
	"os"
	"syscall"
)

// memFree is how much room /dev/shm must have left for the tests'
// temporary files to go there: two packages at once each keep a few
// hundred megabytes of repositories, worktrees and journals at most.
const memFree = 8 << 30

// memTempDir is a fresh folder in memory (/dev/shm) for the tests'
// temporary files, unless the developer chose a TMPDIR or /dev/shm is
// small (as a container's 64 MB one is). The tests create and delete many
// small files (git repositories, worktrees, journals): on a disk, the file
// system's search for free inodes was a seventh of the chaos suite's CPU,
// and a git-heavy package took 10-15% less CPU in memory. Nothing the
// tests check depends on a disk: a killed hive loses its process, not the
// machine's memory.
func memTempDir() (string, bool) {
	if os.Getenv("TMPDIR") != "" || !memRoom() {
		return "", false
	}
	dir, err := os.MkdirTemp("/dev/shm", "hive-test-")
	return dir, err == nil
}

// memRoom reports whether /dev/shm has memFree left.
func memRoom() bool {
	var st syscall.Statfs_t
	return syscall.Statfs("/dev/shm", &st) == nil && st.Bavail*uint64(st.Bsize) >= memFree
}
