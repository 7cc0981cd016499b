package planning

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// hiveTmp is where hive writes a file before it renames it into place:
// inside .hive/ (git never sees it), on the repository's file system, so
// that a kill between the write and the rename leaves nothing in the
// user's tree.
func hiveTmp(root string) string { return filepath.Join(root, ".hive", "tmp") }

// writeAtomic writes data to path (inside the repository or worktree at
// root) through a temporary file under root's .hive/tmp, then renames it
// into place: a reader, or a resume after a kill, sees the old file or the
// new one, never half of one, and no temporary file is left in the tree.
func writeAtomic(root, path string, data []byte) error {
	dir := hiveTmp(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() // the user's permissions stay as they were
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(mode)
	}
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, firstErr(werr, cerr))
	}
	crashPoint("write", filepath.Base(path))
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ownLeftovers are the files an older hive, killed while it wrote a view,
// may have left in the tree: they are hive's, never the user's changes.
var ownLeftovers = []string{".pending-checkpoint-*.json.tmp"}

// IsOwnFile reports whether a path git shows as changed is one of hive's
// own files in the user's tree (checkpoint views and their leftovers), which
// never count as the user's uncommitted changes.
func IsOwnFile(rel string) bool {
	base := rel[strings.LastIndex(rel, "/")+1:]
	for _, pattern := range append([]string{".pending-checkpoint-*.json"}, ownLeftovers...) {
		if ok, _ := filepath.Match(pattern, base); ok {
			return true
		}
	}
	return false
}

// RemoveLeftovers deletes what a killed hive left in the phase folder, and
// temporary files of its own older than an hour (younger ones may be
// another phase's hive writing right now), and says what it removed from
// the tree.
func RemoveLeftovers(root, phaseDir string, note func(string)) {
	if entries, err := os.ReadDir(hiveTmp(root)); err == nil {
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(hiveTmp(root), e.Name()))
			}
		}
	}
	for _, pattern := range ownLeftovers {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(phaseDir), pattern))
		for _, m := range matches {
			if os.Remove(m) == nil {
				rel, _ := filepath.Rel(root, m)
				note("removed " + filepath.ToSlash(rel) + ", left by a hive that was stopped while it wrote it")
			}
		}
	}
}
