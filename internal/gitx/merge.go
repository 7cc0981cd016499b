package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrConflict is returned by Merge when the merge stopped on conflicts; the
// merge is left in progress for the caller to resolve or abort.
var ErrConflict = errors.New("merge conflict")

// At returns the repository as seen from another of its worktrees: the same
// lock, another working folder.
func (r *Repo) At(dir string) *Repo { return &Repo{Root: dir} }

// IsAncestor reports whether commit a is reachable from b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) bool {
	_, err := r.Git(ctx, "merge-base", "--is-ancestor", "--end-of-options", a, b)
	return err == nil
}

// Head returns the commit checked out.
func (r *Repo) Head(ctx context.Context) (string, error) {
	out, err := r.Git(ctx, "rev-parse", "--verify", "HEAD^{commit}")
	return strings.TrimSpace(out), err
}

// MergeInProgress reports whether a merge waits to be committed or aborted:
// whether the worktree's git dir holds MERGE_HEAD, as git itself decides.
// The file is looked for, not asked of git: a plan's merge asks it three
// times, a git process each.
func (r *Repo) MergeInProgress(ctx context.Context) bool {
	if dir, ok := r.gitDir(); ok {
		_, err := os.Stat(filepath.Join(dir, "MERGE_HEAD"))
		return err == nil
	}
	_, err := r.Git(ctx, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	return err == nil
}

// gitDir is the worktree's own git dir, read as git finds it at the top of
// a working tree: the .git folder of the main tree, or the folder a linked
// worktree's .git file names. ok is false where Root holds no .git (git
// is then asked: Root may be a folder below the top, or GIT_DIR set).
func (r *Repo) gitDir() (dir string, ok bool) {
	if os.Getenv("GIT_DIR") != "" {
		return "", false
	}
	dotgit := filepath.Join(r.Root, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		return dotgit, true
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return "", false
	}
	d, found := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !found || d == "" {
		return "", false
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(r.Root, d)
	}
	return d, true
}

// AbortMerge drops a merge in progress and any change to tracked files, so
// the worktree is its HEAD again.
func (r *Repo) AbortMerge(ctx context.Context) error {
	if r.MergeInProgress(ctx) {
		r.Git(ctx, "merge", "--abort") // a reset follows whatever it did
	}
	_, err := r.Git(ctx, "reset", "--hard", "-q", "HEAD")
	return err
}

// DropHalfDone brings a worktree that a killed hive left mid-step back to
// its HEAD: a merge in progress is aborted (AbortMerge); otherwise changes
// to tracked files are dropped and the index emptied, but new files stay.
// A file written and staged but not yet committed (the verifier's report)
// is then found again rather than deleted, as `reset --hard` would.
func (r *Repo) DropHalfDone(ctx context.Context) error {
	if r.MergeInProgress(ctx) {
		return r.AbortMerge(ctx)
	}
	if _, err := r.Git(ctx, "reset", "-q"); err != nil {
		return err
	}
	_, err := r.Git(ctx, "checkout", "-q", "--", ".")
	return err
}

// Unmerged lists the files a merge in progress left in conflict.
func (r *Repo) Unmerged(ctx context.Context) ([]string, error) {
	out, err := r.Git(ctx, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// Merge merges branch into the checked-out branch with a merge commit
// (--no-ff) but does not commit, so the caller can adjust the result. On
// conflicts it returns the conflicting files and ErrConflict, leaving the
// merge in progress.
func (r *Repo) Merge(ctx context.Context, branch, message string) ([]string, error) {
	if err := CheckBranchName(ctx, branch); err != nil {
		return nil, err
	}
	_, err := r.Git(ctx, append(r.identity(ctx), "merge", "--no-ff", "--no-commit", "--no-verify", "-m", message, branch)...)
	if err == nil {
		return nil, nil
	}
	files, uerr := r.Unmerged(ctx)
	if uerr == nil && len(files) > 0 {
		return files, fmt.Errorf("merge %s: %w in %s", branch, ErrConflict, strings.Join(files, ", "))
	}
	return nil, err
}

// CommitAll commits everything staged and unstaged in tracked files (and the
// given new paths) with message; it is how hive concludes a merge or records
// its planning files. Nothing to commit is no error.
func (r *Repo) CommitAll(ctx context.Context, message string, paths ...string) error {
	if len(paths) > 0 {
		// -f: the named paths are committed even in a folder .gitignore
		// ignores; nothing else is added.
		if _, err := r.Git(ctx, append([]string{"add", "-f", "--"}, paths...)...); err != nil {
			return err
		}
	}
	if !r.MergeInProgress(ctx) {
		if _, err := r.Git(ctx, "diff", "--cached", "--quiet"); err == nil {
			return nil
		}
	}
	_, err := r.Git(ctx, append(r.identity(ctx), "commit", "--no-verify", "-q", "-m", message)...)
	return err
}

// FallbackIdentity is who hive's commits are by when git has no identity.
const FallbackIdentity = "hive <hive@localhost>"

// identity gives git an author when the user has none configured, so that
// hive's own commits never fail on a fresh machine (hive doctor warns).
func (r *Repo) identity(ctx context.Context) []string {
	if _, ok := hasIdentity.Load(r.Root); ok {
		return nil
	}
	if _, err := r.Git(ctx, "var", "GIT_COMMITTER_IDENT"); err == nil {
		if _, err := r.Git(ctx, "var", "GIT_AUTHOR_IDENT"); err == nil {
			hasIdentity.Store(r.Root, struct{}{})
			return nil
		}
	}
	return []string{"-c", "user.name=hive", "-c", "user.email=hive@localhost"}
}

// hasIdentity holds the working trees where git was found to have an
// identity: a run commits each plan's merge in the same tree, and asking
// git again cost two processes per commit. Only a found identity is kept,
// so one configured during a run is used from the next commit on.
var hasIdentity sync.Map

// Identity says who commits made in r are by: ident is "Name <email>" as
// git would write it, "" when git has none (hive's commits are then by
// FallbackIdentity); guessed is true when git made it up from the machine
// (user name, host name) because user.name or user.email is not set.
func (r *Repo) Identity(ctx context.Context) (ident string, guessed bool) {
	out, err := r.Git(ctx, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		return "", false
	}
	if _, err := r.Git(ctx, "var", "GIT_COMMITTER_IDENT"); err != nil {
		return "", false
	}
	// "Name <email> 1700000000 +0000": the time is not the identity.
	ident = strings.TrimSpace(out)
	if i := strings.LastIndexByte(ident, '>'); i >= 0 {
		ident = ident[:i+1]
	}
	_, err = r.Git(ctx, "-c", "user.useConfigOnly=true", "var", "GIT_AUTHOR_IDENT")
	return ident, err != nil
}

// Dirty lists the changes `git status` reports in the worktree: modified,
// staged and untracked files (ignored and excluded ones aside).
func (r *Repo) Dirty(ctx context.Context) ([]string, error) {
	out, err := r.Git(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var files []string
	entries := strings.Split(out, "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		files = append(files, e[3:])
		if e[0] == 'R' || e[0] == 'C' {
			i++ // the rename's source follows
		}
	}
	return files, nil
}

// BranchExists reports whether refs/heads/name exists. A plan's steps ask
// five times (its worktree, merge and clean-up, and the run's end), so the
// answer is read where git keeps branches, a loose ref file or a line of
// packed-refs, as git reads them; git is asked only where that store is
// not files (reftable) or the ref is not a plain one.
func (r *Repo) BranchExists(ctx context.Context, name string) bool {
	if found, ok := r.readBranch(ctx, name); ok {
		return found
	}
	_, err := r.Git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+name)
	return err == nil
}

// readBranch looks for refs/heads/name in the files ref store of the
// common git dir; ok is false where git must be asked. git writes a loose
// ref by renaming its lock file over it, and packs refs by writing
// packed-refs before deleting the loose files, so a branch that exists
// throughout is found in one place or the other.
func (r *Repo) readBranch(ctx context.Context, name string) (found, ok bool) {
	if name == "" || strings.ContainsAny(name, "\x00\n\r\\") || strings.Contains(name, "..") || os.Getenv("GIT_DIR") != "" {
		return false, false
	}
	common, err := r.CommonDir(ctx)
	if err != nil {
		return false, false
	}
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return false, false
	}
	ref := "refs/heads/" + name
	data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref)))
	switch {
	case err == nil && isHash(strings.TrimSpace(string(data))):
		return true, true
	case err == nil: // a symbolic ref, or one being written: git decides
		return false, false
	case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.EISDIR):
		return false, false
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return false, true
	} else if err != nil {
		return false, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if hash, rest, cut := strings.Cut(strings.TrimRight(line, "\r"), " "); cut && rest == ref && isHash(hash) {
			return true, true
		}
	}
	return false, true
}

// isHash says whether s is a full object name (SHA-1 or SHA-256).
func isHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// CurrentBranch returns the branch checked out, or "" when HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) string {
	out, err := r.Git(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// CommitOnly commits the given paths as they are in the working tree and
// nothing else, whatever else is staged (`git commit --only`).
func (r *Repo) CommitOnly(ctx context.Context, message string, paths ...string) error {
	if _, err := r.Git(ctx, append([]string{"add", "-f", "--"}, paths...)...); err != nil {
		return err
	}
	if _, err := r.Git(ctx, append([]string{"diff", "--cached", "--quiet", "--"}, paths...)...); err == nil {
		return nil // unchanged
	}
	args := append(r.identity(ctx), "commit", "--no-verify", "-q", "--only", "-m", message, "--")
	if _, err := r.Git(ctx, append(args, paths...)...); err != nil {
		// Nothing of hive's stays staged in the user's index (the commit
		// may have failed because ctx ended: the unstaging has its own).
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		r.Git(uctx, append([]string{"reset", "-q", "--"}, paths...)...)
		return err
	}
	return nil
}

// Restore puts paths (files or folders) back as they are in commit base,
// in a commit of them alone, whatever else is changed or staged: what
// base lacks is removed. Paths that HEAD holds as base does make no
// commit.
func (r *Repo) Restore(ctx context.Context, message, base string, paths ...string) error {
	var changed []string
	for _, p := range paths {
		if _, err := r.Git(ctx, "diff", "--quiet", base, "HEAD", "--", p); err != nil {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	for _, p := range changed {
		if _, err := r.Git(ctx, "rm", "-r", "-q", "-f", "--ignore-unmatch", "--", p); err != nil {
			return err
		}
		if _, err := r.Git(ctx, "cat-file", "-e", base+":"+p); err == nil {
			if _, err := r.Git(ctx, "checkout", base, "--", p); err != nil {
				return err
			}
		}
	}
	_, err := r.Git(ctx, append(append(r.identity(ctx), "commit", "--no-verify", "-q", "--only", "-m", message, "--"), changed...)...)
	return err
}

// EmptyTree is git's tree of no file: a base that has nothing.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// DeleteBranch deletes branch name (merged or not), holding the repository lock.
func (r *Repo) DeleteBranch(ctx context.Context, name string) error {
	if err := CheckBranchName(ctx, name); err != nil {
		return err
	}
	return r.Locked(ctx, func() error {
		_, err := r.Git(ctx, "branch", "-D", "--", name)
		return err
	})
}

// DropUntrackedOf removes the worktree's untracked files that branch
// holds byte for byte, and returns how many went: what a git killed in
// the middle of merging branch left (the files written, not yet its
// index), which git then refuses to merge over. An untracked file that
// differs from branch's, or that branch lacks, stays.
func (r *Repo) DropUntrackedOf(ctx context.Context, branch string) (int, error) {
	if err := CheckBranchName(ctx, branch); err != nil {
		return 0, err
	}
	out, err := r.Git(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range strings.Split(out, "\x00") {
		if p == "" || !filepath.IsLocal(p) {
			continue
		}
		want, err := r.Git(ctx, "rev-parse", "-q", "--verify", "--end-of-options", branch+":"+p)
		if err != nil {
			continue // not the branch's
		}
		got, err := r.Git(ctx, "hash-object", "--", p)
		if err != nil || strings.TrimSpace(got) != strings.TrimSpace(want) {
			continue
		}
		if err := os.Remove(filepath.Join(r.Root, p)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
