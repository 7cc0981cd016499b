package stalelocks

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/gitx"
)

// staleAfter is how old a lock file must be, where no process table can be
// read, before it is judged left behind rather than held.
const staleAfter = 10 * time.Minute

// Clear removes the lock files a git killed mid-write (with hive,
// by a crash, by kill -9) left in what hive owns: the index and HEAD locks
// of the worktrees under root (hive's worktree folder of one phase), and the
// locks of the given branches and of the branches under them (hive/01 is
// hive/01.lock and everything below refs/heads/hive/01/). Git itself refuses to
// work while they exist ("Unable to create '…/index.lock': File exists").
// A lock some process still has open is live and left alone, as is every
// lock of the user's own worktree and of the repository as a whole. The
// caller must hold the phase, so that no other hive works there. It returns
// one note per removed lock.
func Clear(ctx context.Context, r *gitx.Repo, root string, branches ...string) ([]string, error) {
	locks, err := hiveLocks(ctx, r, root, branches)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, p := range locks {
		if !stale(p) {
			continue
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return notes, fmt.Errorf("remove the stale git lock %s: %w", p, err)
		}
		notes = append(notes, fmt.Sprintf("removed %s: a git lock left by a git process that was killed (none holds it now)", p))
	}
	return notes, nil
}

// ClearTree removes the index and HEAD locks of the repository's
// main worktree that no process holds: what a git of an agent killed
// mid-write, with the worker that ran it, leaves in a shared tree. Only a
// worker that retries such an agent calls it; otherwise hive leaves the
// user's own locks to the user (List, hive doctor). It returns one
// note per removed lock.
func ClearTree(ctx context.Context, r *gitx.Repo) ([]string, error) {
	common, err := r.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, name := range []string{"index.lock", "HEAD.lock"} {
		p := filepath.Join(common, name)
		if !exists(p) || !stale(p) {
			continue
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return notes, fmt.Errorf("remove the stale git lock %s: %w", p, err)
		}
		notes = append(notes, fmt.Sprintf("removed %s: a git lock left by a killed git (no process holds it)", p))
	}
	return notes, nil
}

// List lists, removing nothing, the stale git locks in what hive owns
// (those Clear would remove) and in the user's own repository
// (the index and HEAD locks of its main worktree, which hive never removes:
// the user decides).
func List(ctx context.Context, r *gitx.Repo, root string, branches ...string) (hive, user []string, err error) {
	locks, err := hiveLocks(ctx, r, root, branches)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range locks {
		if stale(p) {
			hive = append(hive, p)
		}
	}
	common, err := r.CommonDir(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range []string{"index.lock", "HEAD.lock"} {
		if p := filepath.Join(common, name); exists(p) && stale(p) {
			user = append(user, p)
		}
	}
	return hive, user, nil
}

// hiveLocks are the lock files, held or not, in what hive owns: see Clear.
func hiveLocks(ctx context.Context, r *gitx.Repo, root string, branches []string) ([]string, error) {
	common, err := r.CommonDir(ctx)
	if err != nil {
		return nil, err
	}
	var locks []string
	admins, _ := filepath.Glob(filepath.Join(common, "worktrees", "*"))
	for _, admin := range admins {
		data, err := os.ReadFile(filepath.Join(admin, "gitdir")) // <worktree>/.git
		if err != nil {
			continue
		}
		gitdir := strings.TrimSpace(string(data))
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(admin, gitdir)
		}
		if !within(root, filepath.Dir(gitdir)) {
			continue
		}
		for _, name := range []string{"index.lock", "HEAD.lock"} {
			if p := filepath.Join(admin, name); exists(p) {
				locks = append(locks, p)
			}
		}
	}
	for _, b := range branches {
		ref := filepath.Join(common, "refs", "heads", filepath.FromSlash(b))
		if exists(ref + ".lock") {
			locks = append(locks, ref+".lock")
		}
		filepath.WalkDir(ref, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
				locks = append(locks, p)
			}
			return nil
		})
	}
	return locks, nil
}

func within(root, path string) bool {
	rel, err := filepath.Rel(gitx.Canonical(root), gitx.Canonical(path))
	return err == nil && filepath.IsLocal(rel)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// stale reports whether no process has the lock file open. Git keeps a
// lock open while it writes and renames it over its target when done, so
// a lock nobody holds is one whose writer died. Without a readable process
// table (not Linux), a lock older than staleAfter counts as stale.
func stale(lock string) bool {
	pids, err := os.ReadDir("/proc")
	if err != nil {
		st, err := os.Stat(lock)
		return err == nil && time.Since(st.ModTime()) > staleAfter
	}
	want := gitx.Canonical(lock)
	for _, pid := range pids {
		fds, err := os.ReadDir(filepath.Join("/proc", pid.Name(), "fd"))
		if err != nil {
			continue // not a process, or not ours to read
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc", pid.Name(), "fd", fd.Name())); err == nil && target == want {
				return false
			}
		}
	}
	return true
}
