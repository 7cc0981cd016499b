package worktrees

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CacheRoot is hive's folder of worktrees in the user's cache folder,
// which holds one folder per repository (see DefaultRoot).
func CacheRoot() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "hive", "worktrees"), nil
}

// Orphans lists the repository folders under root (CacheRoot) whose
// repository no longer exists: every worktree in them points at a git
// folder that is gone (the repository was deleted or moved away), or they
// hold no worktree at all. Removing them loses nothing a repository knows.
func Orphans(root string) ([]string, error) {
	repos, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range repos {
		dir := filepath.Join(root, r.Name())
		if r.IsDir() && !anyLiveWorktree(dir) {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out, nil
}

// anyLiveWorktree reports whether a repository folder of hive's holds a
// worktree (<phase>/<plan or integration>) whose repository still exists,
// or anything that is not hive's layout, which is left alone.
func anyLiveWorktree(repoDir string) bool {
	phases, err := os.ReadDir(repoDir)
	if err != nil {
		return true
	}
	for _, ph := range phases {
		if !ph.IsDir() {
			return true // not hive's layout: keep it
		}
		wts, err := os.ReadDir(filepath.Join(repoDir, ph.Name()))
		if err != nil {
			return true
		}
		for _, wt := range wts {
			if !wt.IsDir() {
				return true
			}
			if repositoryExists(filepath.Join(repoDir, ph.Name(), wt.Name(), ".git")) {
				return true
			}
		}
	}
	return false
}

// repositoryExists reads a worktree's .git file and reports whether the
// repository it belongs to (the git folder above its admin folder) is still
// there. A folder without a .git file belongs to no repository.
func repositoryExists(dotgit string) bool {
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return !os.IsNotExist(err) // unreadable: keep it
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return true
	}
	admin = strings.TrimSpace(admin)
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(filepath.Dir(dotgit), admin)
	}
	// <repo>/.git/worktrees/<name>: the repository's git folder is two up.
	_, err = os.Stat(filepath.Join(filepath.Dir(filepath.Dir(admin)), "HEAD"))
	return err == nil
}
