package worktrees

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
)

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

// DefaultRoot is where hive puts a repository's worktrees unless
// configured otherwise: <user cache dir>/hive/worktrees/<repo name>-<hash>,
// the hash being a short sha256 of the repository's absolute path, so two
// checkouts with one name do not share a folder.
func DefaultRoot(repoRoot string) (string, error) {
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		return "", err
	}
	abs = gitx.Canonical(abs)
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

// List lists the repository's worktrees, the main one first.
func List(ctx context.Context, r *gitx.Repo) ([]Worktree, error) {
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

// Find returns the registered worktree at path among wts (compared after
// resolving symlinks), or nil.
func Find(wts []Worktree, path string) *Worktree {
	want := gitx.Canonical(path)
	for i := range wts {
		if gitx.Canonical(wts[i].Path) == want {
			return &wts[i]
		}
	}
	return nil
}

// Add creates branch from base (a ref or commit) and checks it out
// in a new worktree at path, holding the repository lock. It is idempotent:
// if path is already a worktree of branch it does nothing, and if branch
// exists but has no worktree it is checked out as it is (not reset to base).
//
// What an earlier run or an earlier repository left in the way is cleared
// first, and each thing done is told in one line to the WithNotes function
// of ctx (see clearWay). The caller must keep other runs off branch (hive
// holds the phase's lock): a worktree of branch elsewhere is taken to be
// left over, not in use.
func Add(ctx context.Context, r *gitx.Repo, path, branch, base string) error {
	if err := gitx.CheckBranchName(ctx, branch); err != nil {
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
		ready, err := clearWay(ctx, r, path, branch)
		if err != nil || ready {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("worktree folder: %w", err)
		}
		if r.BranchExists(ctx, branch) {
			_, err = r.Git(ctx, "worktree", "add", "--", path, branch)
			return err
		}
		// The base as a commit, never a branch name: git would make a branch
		// made from a branch track it (branch.autoSetupMerge=always). git
		// resolves it; only a failure asks why, so a plan's worktree costs
		// no process to resolve its base.
		_, err = r.Git(ctx, "worktree", "add", "-b", branch, "--", path, base+"^{commit}")
		if err != nil {
			if _, verr := r.Git(ctx, "rev-parse", "--verify", "--end-of-options", base+"^{commit}"); verr != nil {
				return fmt.Errorf("worktree %s: base %q is not a commit: %w", path, base, verr)
			}
		}
		return err
	})
}

// noteKey is the context key of WithNotes.
type noteKey struct{}

// WithNotes returns a context under which Add tells note, in one
// line each, what it did on its own to clear the way for a worktree: a
// registration forgotten, a worktree moved or removed, a stale folder
// deleted.
func WithNotes(ctx context.Context, note func(string)) context.Context {
	return context.WithValue(ctx, noteKey{}, note)
}

// Note tells the WithNotes function of ctx, if any, what a caller did on
// its own to clear the way, in the same words as hive's git steps.
func Note(ctx context.Context, format string, args ...any) { noteTo(ctx, format, args...) }

func noteTo(ctx context.Context, format string, args ...any) {
	if note, ok := ctx.Value(noteKey{}).(func(string)); ok && note != nil {
		note(fmt.Sprintf(format, args...))
	}
}

// clearWay makes room for a worktree of branch at path; ready says path is
// already that worktree. What it finds in the way, and what it does:
//
//   - A worktree at path that git keeps locked "initializing" (its `git
//     worktree add` was killed) is removed, to be made again.
//   - A registration (at path, or elsewhere holding branch) whose folder is
//     gone — the worktree folder was deleted, or the repository was cloned
//     again — is pruned; git would say branch "is already checked out" there.
//     A locked one is the user's to unlock.
//   - A worktree of branch elsewhere that hive made (same <phase>/<name>
//     layout: hive's worktree folder moved with the repository, the cache
//     folder or git.worktree_dir) is moved to path with its uncommitted work
//     (`git worktree move`), or, where it cannot be moved, removed if it
//     holds no uncommitted change. One with uncommitted changes that cannot
//     be moved, the user's own worktree and the main working tree are left,
//     with an error saying what to do.
//   - A folder at path that git does not know is removed when it is a stale
//     worktree (its .git file points at a registration that is gone: an
//     earlier repository at the same place) or empty; anything else is left
//     with an error.
func clearWay(ctx context.Context, r *gitx.Repo, path, branch string) (ready bool, err error) {
	wts, err := List(ctx, r)
	if err != nil {
		return false, err
	}
	main := ""
	if len(wts) > 0 {
		main = wts[0].Path
	}
	if wt := Find(wts, path); wt != nil && wt.Locked && wt.LockReason == "initializing" {
		// A `git worktree add` killed mid-way: hive holds the repository
		// lock, so none is running. It may have checked nothing out (an
		// agent there would see every file deleted), and no agent ever
		// worked in it: remove it, and it is made again.
		args := []string{"worktree", "remove", "--force", "--force", "--", wt.Path}
		if wt.Prunable { // killed before it made the folder
			args = []string{"worktree", "unlock", "--", wt.Path}
		}
		if _, err := r.Git(ctx, args...); err != nil {
			return false, err
		}
		noteTo(ctx, "removed worktree %s of %s: a git worktree add was killed before it finished (it is made again)", wt.Path, wtBranch(wt))
		return clearWay(ctx, r, path, branch)
	}
	if wt := Find(wts, path); wt != nil {
		switch {
		case wt.Prunable && wt.Locked:
			return false, fmt.Errorf("git keeps a locked registration of worktree %s, whose folder is gone: unlock it (git worktree unlock %s) or remove it (git worktree remove -f -f %s), then run again", wt.Path, wt.Path, wt.Path)
		case wt.Prunable:
			if err := prune(ctx, r, wt); err != nil {
				return false, err
			}
		case wt.Branch == branch:
			return true, nil
		default:
			what := "a detached HEAD"
			if wt.Branch != "" {
				what = "branch " + wt.Branch
			}
			return false, fmt.Errorf("worktree %s has %s checked out, not %s: remove it (git worktree remove %s, or hive clean), then run again", wt.Path, what, branch, wt.Path)
		}
	}
	for i := range wts {
		wt := &wts[i]
		if wt.Branch != branch || gitx.Canonical(wt.Path) == gitx.Canonical(path) {
			continue
		}
		switch {
		case wt.Prunable && wt.Locked:
			return false, fmt.Errorf("branch %s is checked out in worktree %s, whose folder is gone but which git keeps locked: unlock it (git worktree unlock %s), then run again", branch, wt.Path, wt.Path)
		case wt.Prunable:
			if err := prune(ctx, r, wt); err != nil {
				return false, err
			}
		case wt.Path == main:
			return false, fmt.Errorf("branch %s is checked out in your working tree %s: check out another branch there (git switch -), then run again", branch, wt.Path)
		case !sameLayout(wt.Path, path):
			return false, fmt.Errorf("branch %s is checked out in your worktree %s: remove that worktree (git worktree remove %s) or check out another branch in it, then run again", branch, wt.Path, wt.Path)
		default:
			return relocate(ctx, r, wt, path, branch)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		if _, err := removeStaleFolder(ctx, r, path, true); err != nil {
			return false, fmt.Errorf("worktree of %s: %w", branch, err)
		}
	}
	return false, nil
}

// prune forgets the registration of wt, whose folder is gone (and those
// of any other worktree whose folder is gone: git prunes them all).
func prune(ctx context.Context, r *gitx.Repo, wt *Worktree) error {
	if _, err := r.Git(ctx, "worktree", "prune"); err != nil {
		return err
	}
	noteTo(ctx, "forgot worktree %s of %s: its folder is gone (git worktree prune)", wt.Path, wtBranch(wt))
	return nil
}

func wtBranch(wt *Worktree) string {
	if wt.Branch == "" {
		return "a detached HEAD"
	}
	return "branch " + wt.Branch
}

// sameLayout says whether a and b end in the same two folders, as hive's
// worktrees do (<root>/<phase>/<plan or integration>) wherever their root
// is.
func sameLayout(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	return filepath.Base(a) == filepath.Base(b) && filepath.Base(filepath.Dir(a)) == filepath.Base(filepath.Dir(b))
}

// relocate brings hive's worktree wt of branch, found at another place than
// path, to path: moved with whatever it holds, or, when git cannot move it
// (another file system, a locked worktree), removed if nothing would be
// lost.
func relocate(ctx context.Context, r *gitx.Repo, wt *Worktree, path, branch string) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		if _, err := removeStaleFolder(ctx, r, path, true); err != nil {
			return false, fmt.Errorf("branch %s is checked out in worktree %s and %s is in the way of moving it: %w", branch, wt.Path, path, err)
		}
	}
	if !wt.Locked {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, fmt.Errorf("worktree folder: %w", err)
		}
		// A repository that moved has worktrees whose .git files point at
		// its old place: repair the link, or git refuses to move them.
		r.Git(ctx, "worktree", "repair", "--", wt.Path)
		_, moveErr := r.Git(ctx, "worktree", "move", "--", wt.Path, path)
		if moveErr == nil {
			noteTo(ctx, "moved worktree of %s from %s to %s, where hive keeps its worktrees now", branch, wt.Path, path)
			return true, nil
		}
	}
	dirty, err := r.At(wt.Path).Dirty(ctx)
	if err != nil {
		return false, fmt.Errorf("branch %s is checked out in worktree %s, which hive cannot read (%v): remove it (git worktree remove -f %s), then run again", branch, wt.Path, err, wt.Path)
	}
	if len(dirty) > 0 || r.At(wt.Path).MergeInProgress(ctx) {
		return false, fmt.Errorf("branch %s is checked out in worktree %s, which holds uncommitted changes (%s) and cannot be moved to %s: commit or discard them there and remove it (git worktree remove %s), then run again", branch, wt.Path, fileList(dirty), path, wt.Path)
	}
	if wt.Locked {
		return false, fmt.Errorf("branch %s is checked out in worktree %s, which is locked (%s): unlock it (git worktree unlock %s), then run again", branch, wt.Path, wt.LockReason, wt.Path)
	}
	if _, err := r.Git(ctx, "worktree", "remove", "--", wt.Path); err != nil {
		return false, err
	}
	noteTo(ctx, "removed worktree %s of %s (no uncommitted change; the branch keeps its commits): hive keeps its worktrees in %s now", wt.Path, branch, filepath.Dir(filepath.Dir(path)))
	return false, nil
}

// fileList names up to three files and how many more.
func fileList(files []string) string {
	if len(files) == 0 {
		return "a merge in progress"
	}
	shown := strings.Join(files[:min(3, len(files))], ", ")
	if len(files) > 3 {
		shown += fmt.Sprintf(" and %d more", len(files)-3)
	}
	return shown
}

// ErrInTheWay is returned (as an *InTheWayError) for a folder at a
// worktree path that hive must not remove: a live worktree or repository,
// or files that are no worktree.
var ErrInTheWay = errors.New("folder in the way")

// InTheWayError says what a folder hive must leave is and what the user can
// do about it.
type InTheWayError struct {
	Path string
	What string // "holds files but is no git worktree"
	Fix  string // "move or delete it"
}

func (e *InTheWayError) Error() string {
	return fmt.Sprintf("%s %s: %s, then run again", e.Path, e.What, e.Fix)
}

func (e *InTheWayError) Is(target error) bool { return target == ErrInTheWay }

// Has reports whether path is a worktree this repository knows (a
// folder there may also be one an earlier repository at the same place
// left, which git no longer knows).
func Has(ctx context.Context, r *gitx.Repo, path string) bool {
	wts, err := List(ctx, r)
	return err == nil && Find(wts, path) != nil
}

// RemoveStaleFolder removes the folder at path if it is empty or a stale
// worktree: a folder whose .git file points at a worktree registration that
// no longer exists or no longer points back at it, as the worktrees of an
// earlier repository at the same place (deleted, or cloned again) are. It
// says whether it removed it; a folder it must leave is an ErrInTheWay error
// saying what the folder is. Hold the repository lock (gitx.Repo.Locked).
func RemoveStaleFolder(ctx context.Context, r *gitx.Repo, path string) (bool, error) {
	return removeStaleFolder(ctx, r, path, false)
}

func removeStaleFolder(ctx context.Context, r *gitx.Repo, path string, note bool) (bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return false, nil
	case err != nil:
		return false, err
	case !fi.IsDir():
		return false, &InTheWayError{path, "is a file, not a folder", "move or delete it"}
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false, err
	}
	if len(entries) == 0 {
		return true, os.Remove(path)
	}
	dotgit := filepath.Join(path, ".git")
	gi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return false, &InTheWayError{path, "holds files but is no git worktree", "move or delete it"}
	case gi.IsDir():
		return false, &InTheWayError{path, "is a git repository of its own", "move or delete it"}
	}
	if admin, live := worktreeAdmin(dotgit); live {
		wts, _ := List(ctx, r)
		if wt := Find(wts, path); wt != nil {
			return false, &InTheWayError{path, "is a worktree of this repository (" + wtBranch(wt) + ")", "remove it (git worktree remove " + path + ")"}
		}
		return false, &InTheWayError{path, "is a worktree of another repository (" + admin + ")", "remove it there (git worktree remove " + path + "), or set git.worktree_dir to another folder"}
	}
	if err := os.RemoveAll(path); err != nil {
		return false, fmt.Errorf("remove the stale worktree folder %s: %w", path, err)
	}
	if note {
		noteTo(ctx, "removed stale folder %s: a worktree of an earlier repository at this place that git no longer knows (whatever it held uncommitted is gone with it)", path)
	}
	return true, nil
}

// worktreeAdmin reads a worktree's .git file ("gitdir: <admin folder>") and
// says whether that admin folder still exists and points back at it: if not,
// no repository knows the worktree any more.
func worktreeAdmin(dotgit string) (string, bool) {
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return "", false
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", false
	}
	admin = strings.TrimSpace(admin)
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(filepath.Dir(dotgit), admin)
	}
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil {
		return admin, false
	}
	return admin, gitx.Canonical(strings.TrimSpace(string(back))) == gitx.Canonical(dotgit)
}

// Remove force-removes the worktree at path (uncommitted changes
// are lost) and, if deleteBranch is not empty, deletes that branch, holding
// the repository lock. A worktree or branch that is already gone is no error.
func Remove(ctx context.Context, r *gitx.Repo, path string, deleteBranch string) error {
	path, err := cleanPath(path)
	if err != nil {
		return err
	}
	if deleteBranch != "" {
		if err := gitx.CheckBranchName(ctx, deleteBranch); err != nil {
			return err
		}
	}
	return r.Locked(ctx, func() error {
		if ownsLiveWorktree(ctx, r, path) {
			// Its folder and this repository's registration point at each
			// other: nothing to find in a listing (a process per plan).
			if _, err := r.Git(ctx, "worktree", "remove", "--force", "--force", "--", path); err != nil {
				return err
			}
		} else if err := removeListed(ctx, r, path); err != nil {
			return err
		}
		if deleteBranch == "" {
			return nil
		}
		if !r.BranchExists(ctx, deleteBranch) {
			return nil // already gone
		}
		_, err = r.Git(ctx, "branch", "-D", "--", deleteBranch)
		return err
	})
}

// removeListed removes the worktree registered at path, if any, as git
// lists it: a registration whose folder is gone is pruned.
func removeListed(ctx context.Context, r *gitx.Repo, path string) error {
	wts, err := List(ctx, r)
	if err != nil {
		return err
	}
	wt := Find(wts, path)
	switch {
	case wt == nil:
		return nil
	case wt.Prunable:
		_, err = r.Git(ctx, "worktree", "prune")
	default:
		_, err = r.Git(ctx, "worktree", "remove", "--force", "--force", "--", wt.Path)
	}
	return err
}

// ownsLiveWorktree says whether the folder at path is a worktree of this
// repository whose registration is intact: its .git file names an admin
// folder under the common git dir's worktrees/, which points back at it.
func ownsLiveWorktree(ctx context.Context, r *gitx.Repo, path string) bool {
	common, err := r.CommonDir(ctx)
	if err != nil {
		return false
	}
	admin, live := worktreeAdmin(filepath.Join(path, ".git"))
	return live && filepath.Dir(gitx.Canonical(admin)) == filepath.Join(common, "worktrees")
}

// Prune drops the registrations of worktrees whose folders are
// gone (`git worktree prune`), holding the repository lock, and tells the
// WithNotes function of ctx about each. Run it at start.
func Prune(ctx context.Context, r *gitx.Repo) error {
	return r.Locked(ctx, func() error {
		wts, err := List(ctx, r)
		if err != nil {
			return err
		}
		if _, err := r.Git(ctx, "worktree", "prune"); err != nil {
			return err
		}
		for i := range wts {
			if wts[i].Prunable && !wts[i].Locked {
				noteTo(ctx, "forgot worktree %s of %s: its folder is gone (git worktree prune)", wts[i].Path, wtBranch(&wts[i]))
			}
		}
		return nil
	})
}

// SetAside renames branch to aside, never deleting its commits, after
// removing the worktree that has it checked out when that worktree holds
// no uncommitted change (one that does is refused, naming its files). hive
// sets aside a plan branch that holds other work than the run's: an earlier
// milestone's plan with the same id left it.
func SetAside(ctx context.Context, r *gitx.Repo, branch, aside string) error {
	for _, name := range []string{branch, aside} {
		if err := gitx.CheckBranchName(ctx, name); err != nil {
			return err
		}
	}
	return r.Locked(ctx, func() error {
		wts, err := List(ctx, r)
		if err != nil {
			return err
		}
		for i := range wts {
			wt := &wts[i]
			if wt.Branch != branch {
				continue
			}
			if wt.Prunable {
				if _, err := r.Git(ctx, "worktree", "prune"); err != nil {
					return err
				}
				continue
			}
			dirty, err := r.At(wt.Path).Dirty(ctx)
			if err != nil {
				return err
			}
			if len(dirty) > 0 {
				return fmt.Errorf("%w: worktree %s of %s has uncommitted changes (%s): commit or discard them there, or run `hive clean`",
					ErrInTheWay, wt.Path, branch, fileList(dirty))
			}
			if _, err := r.Git(ctx, "worktree", "remove", "--force", "--", wt.Path); err != nil {
				return err
			}
		}
		_, err = r.Git(ctx, "branch", "-m", "--", branch, aside)
		return err
	})
}
