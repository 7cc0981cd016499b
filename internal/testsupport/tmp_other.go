//go:build !linux

package testsupport

// memTempDir keeps the system's temporary folder where there is no
// /dev/shm to use (see tmp_linux.go).
func memTempDir() (string, bool) { return "", false }

func memRoom() bool { return false }
