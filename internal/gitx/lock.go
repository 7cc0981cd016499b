package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// LockFile is the name of the file in the common git dir that hive locks to
// serialise its writes to repository metadata across processes.
const LockFile = "hive.lock"

// repoSems holds one semaphore (a channel of capacity 1) per common git dir,
// so goroutines of one process queue in the process before they contend for
// the file lock, and a waiting goroutine can give up when its context ends.
var repoSems sync.Map // canonical common dir -> chan struct{}

// commonDirs caches Root -> absolute common git dir.
var commonDirs sync.Map

// CommonDir returns the absolute path of the repository's common git dir
// (the main .git folder, shared by every worktree).
func (r *Repo) CommonDir(ctx context.Context) (string, error) {
	if d, ok := commonDirs.Load(r.Root); ok {
		return d.(string), nil
	}
	out, err := r.Git(ctx, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", err
	}
	d := strings.TrimSpace(out)
	if !filepath.IsAbs(d) {
		d = filepath.Join(r.Root, d)
	}
	d = Canonical(d)
	commonDirs.Store(r.Root, d)
	return d, nil
}

// Locked runs fn while holding the repository lock: a per-repository lock
// inside this process and an exclusive flock on <common git dir>/hive.lock
// across processes. Use it around git commands that write repository
// metadata (worktrees, branches, config) so parallel callers never fail on
// git's own .lock files. Waiting ends with ctx's error when ctx is done.
// The lock is not re-entrant: fn must not call Locked (nor what takes it,
// such as DeleteBranch or worktrees.Add) on the same repository.
func (r *Repo) Locked(ctx context.Context, fn func() error) error {
	dir, err := r.CommonDir(ctx)
	if err != nil {
		return err
	}
	v, _ := repoSems.LoadOrStore(dir, make(chan struct{}, 1))
	sem := v.(chan struct{})
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("wait for the repository lock: %w", ctx.Err())
	}
	defer func() { <-sem }()

	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("repository lock: %w", err)
	}
	defer f.Close() // closing the file drops the flock
	if err := lockFile(ctx, f); err != nil {
		return err
	}
	defer unlockFile(f)
	return fn()
}

// pollLock retries try with a growing pause until it succeeds, fails for a
// reason other than contention, or ctx ends.
func pollLock(ctx context.Context, name string, try func() (bool, error)) error {
	wait := 2 * time.Millisecond
	for {
		ok, err := try()
		if err != nil {
			return fmt.Errorf("lock %s: %w", name, err)
		}
		if ok {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for the repository lock %s (held by another process): %w", name, ctx.Err())
		}
		if wait < 100*time.Millisecond {
			wait *= 2
		}
	}
}
