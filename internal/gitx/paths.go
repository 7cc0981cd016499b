package gitx

import "path/filepath"

// Canonical resolves symlinks in the longest existing prefix of p, so paths
// compare equal to the real paths git records.
func Canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(Canonical(parent), filepath.Base(p))
}

// SameDir says whether a and b are one folder, their symbolic links
// resolved (a worktree's path as git lists it, and as hive made it).
func SameDir(a, b string) bool {
	ca, err1 := filepath.EvalSymlinks(a)
	cb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ca == cb
}
