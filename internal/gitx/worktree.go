package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrBadBranch is returned for a name git would not accept as a branch.
var ErrBadBranch = errors.New("invalid branch name")

// ErrBadPath is returned for a worktree path that is not a plain path.
var ErrBadPath = errors.New("invalid worktree path")

// Worktree is one entry of `git worktree list --porcelain`.
type Worktree struct {
	Path        string // absolute path as git records it
	Head        string // commit checked out ("" in a bare entry)
	Branch      string // short branch name ("" when detached or bare)
	Bare        bool
	Detached    bool
	Locked      bool
	LockReason  string
	Prunable    bool // its folder is gone; `git worktree prune` drops it
	PruneReason string
}

// PlanBranch is the branch of a plan: hive/<phase>/<plan>. Check it with
// CheckBranchName before use.
func PlanBranch(phase, plan string) string { return "hive/" + phase + "/" + plan }

// CheckBranchName refuses a name that `git check-ref-format --branch` does
// not accept as it is (so no "@{-1}" shorthands), or that starts with "-".
func CheckBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "\x00\n\r") {
		return fmt.Errorf("%w: %q", ErrBadBranch, name)
	}
	out, err := run(ctx, "", "check-ref-format", "--branch", name)
	if err != nil || strings.TrimSpace(out) != name {
		return fmt.Errorf("%w: %q (see `git help check-ref-format`)", ErrBadBranch, name)
	}
	return nil
}

// cleanPath makes p absolute and refuses what is not a plain path.
func cleanPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\x00\n\r") {
		return "", fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrBadPath, p, err)
	}
	return abs, nil
}

// canonical resolves symlinks in the longest existing prefix of p, so paths
// compare equal to the real paths git records.
func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(canonical(parent), filepath.Base(p))
}

// DefaultWorktreeRoot is where hive puts a repository's worktrees unless
// configured otherwise: <user cache dir>/hive/worktrees/<repo name>-<hash>,
// the hash being a short sha256 of the repository's absolute path, so two
// checkouts with one name do not share a folder.
func DefaultWorktreeRoot(repoRoot string) (string, error) {
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		return "", err
	}
	abs = canonical(abs)
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache folder (configure a worktree folder instead): %w", err)
	}
	name := filepath.Base(abs)
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "repo"
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "hive", "worktrees", name+"-"+hex.EncodeToString(sum[:])[:12]), nil
}

// Worktrees lists the repository's worktrees, the main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := r.Git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return parseWorktrees(out), nil
}

func parseWorktrees(out string) []Worktree {
	var wts []Worktree
	var cur *Worktree
	for _, line := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "worktree":
			wts = append(wts, Worktree{Path: val})
			cur = &wts[len(wts)-1]
		case "":
			cur = nil
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "bare":
			cur.Bare = true
		case "detached":
			cur.Detached = true
		case "locked":
			cur.Locked, cur.LockReason = true, val
		case "prunable":
			cur.Prunable, cur.PruneReason = true, val
		}
	}
	return wts
}

// findWorktree returns the registered worktree at path (compared after
// resolving symlinks), or nil.
func findWorktree(wts []Worktree, path string) *Worktree {
	want := canonical(path)
	for i := range wts {
		if canonical(wts[i].Path) == want {
			return &wts[i]
		}
	}
	return nil
}

// AddWorktree creates branch from base (a ref or commit) and checks it out
// in a new worktree at path, holding the repository lock. It is idempotent:
// if path is already a worktree of branch it does nothing, and if branch
// exists but has no worktree it is checked out as it is (not reset to base).
// A stale registration of path whose folder is gone is pruned first.
func (r *Repo) AddWorktree(ctx context.Context, path, branch, base string) error {
	if err := CheckBranchName(ctx, branch); err != nil {
		return err
	}
	path, err := cleanPath(path)
	if err != nil {
		return err
	}
	if base == "" || strings.HasPrefix(base, "-") {
		return fmt.Errorf("worktree %s: invalid base %q", path, base)
	}
	return r.Locked(ctx, func() error {
		wts, err := r.Worktrees(ctx)
		if err != nil {
			return err
		}
		if wt := findWorktree(wts, path); wt != nil {
			switch {
			case wt.Prunable:
				if _, err := r.Git(ctx, "worktree", "prune"); err != nil {
					return err
				}
			case wt.Branch == branch:
				return nil
			default:
				return fmt.Errorf("worktree %s already exists with branch %q, not %q", path, wt.Branch, branch)
			}
		}
		for _, wt := range wts {
			if wt.Branch == branch && !wt.Prunable {
				return fmt.Errorf("branch %s is already checked out in worktree %s", branch, wt.Path)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("worktree folder: %w", err)
		}
		if _, err := r.Git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
			_, err = r.Git(ctx, "worktree", "add", "--", path, branch)
			return err
		}
		commit, err := r.Git(ctx, "rev-parse", "--verify", "--end-of-options", base+"^{commit}")
		if err != nil {
			return fmt.Errorf("worktree %s: base %q is not a commit: %w", path, base, err)
		}
		_, err = r.Git(ctx, "worktree", "add", "-b", branch, "--", path, strings.TrimSpace(commit))
		return err
	})
}

// RemoveWorktree force-removes the worktree at path (uncommitted changes
// are lost) and, if deleteBranch is not empty, deletes that branch, holding
// the repository lock. A worktree or branch that is already gone is no error.
func (r *Repo) RemoveWorktree(ctx context.Context, path string, deleteBranch string) error {
	path, err := cleanPath(path)
	if err != nil {
		return err
	}
	if deleteBranch != "" {
		if err := CheckBranchName(ctx, deleteBranch); err != nil {
			return err
		}
	}
	return r.Locked(ctx, func() error {
		wts, err := r.Worktrees(ctx)
		if err != nil {
			return err
		}
		if wt := findWorktree(wts, path); wt != nil {
			if wt.Prunable {
				_, err = r.Git(ctx, "worktree", "prune")
			} else {
				_, err = r.Git(ctx, "worktree", "remove", "--force", "--force", "--", wt.Path)
			}
			if err != nil {
				return err
			}
		}
		if deleteBranch == "" {
			return nil
		}
		if _, err := r.Git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+deleteBranch); err != nil {
			return nil // already gone
		}
		_, err = r.Git(ctx, "branch", "-D", "--", deleteBranch)
		return err
	})
}

// PruneWorktrees drops the registrations of worktrees whose folders are
// gone (`git worktree prune`), holding the repository lock. Run it at start.
func (r *Repo) PruneWorktrees(ctx context.Context) error {
	return r.Locked(ctx, func() error {
		_, err := r.Git(ctx, "worktree", "prune")
		return err
	})
}
