package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// maxCached is how many indexes a repository keeps: one per commit indexed,
// a few KB each, the oldest removed first.
const maxCached = 32

// cacheKey returns the hash of the git tree the index of root would
// describe, or "" when it cannot be cached, and whether the work tree has
// changes. The key is HEAD's tree for root (HEAD:./, root's own subtree
// when root is a folder inside the repository), and it is given only for a
// clean work tree: a tree hash says nothing of uncommitted edits (a
// package.json changed in place keeps the same status line), and hashing
// the work tree's files ourselves would cost what building the index does.
// A dirty tree is indexed afresh each time, which is cheap enough; a
// repository with no commit has no tree and is not cached either.
func cacheKey(root string) (key string, dirty bool) {
	// --no-optional-locks: a status does not take the index lock that
	// another hive process (or the user's git) may hold.
	status, err := git(root, "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=normal", "--", ".")
	if err != nil {
		return "", true
	}
	if status != "" {
		return "", true
	}
	tree, err := git(root, "rev-parse", "--verify", "--quiet", "HEAD:./")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(tree), false
}

// readCache reads the index cached at p for tree key. Anything short of a
// valid index of this version for that tree (a torn write, an edit, an
// older hive's) is a miss: the index is built again and the file replaced.
func readCache(p, key string) (Index, bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return Index{}, false
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil || ix.Version != Version || ix.Tree != key {
		return Index{}, false
	}
	return ix, true
}

// writeCache writes ix to p through a temporary file and a rename, so a
// reader never sees half an index, then trims the cache to maxCached files.
func writeCache(p string, ix Index) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "index-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	prune(dir)
	return nil
}

// prune removes the oldest cached indexes beyond maxCached.
func prune(dir string) {
	paths, _ := filepath.Glob(filepath.Join(dir, "index-*.json"))
	if len(paths) <= maxCached {
		return
	}
	type entry struct {
		path string
		mod  int64
	}
	var entries []entry
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			entries = append(entries, entry{p, fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].mod < entries[j].mod })
	for _, e := range entries[:max(0, len(entries)-maxCached)] {
		os.Remove(e.path)
	}
}

// git runs git with args in dir (no shell) and returns its standard output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}
