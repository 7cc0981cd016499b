package gitx

import (
	"context"
	"strings"
)

// KeepChanges keeps what the worktree r holds beyond its last commit (changes
// to tracked files, staged or not, and the files git does not ignore) as a
// commit on ref, off every branch, then puts the worktree back at its last
// commit. It says whether there was anything to keep.
//
// It is how an agent's session that was cut off mid-turn (hive killed, the
// agent crashed or hung) leaves its half-done edits: kept, where the next
// session can read them (git diff HEAD ref), but not under that session's
// feet, which would otherwise start from a state no uninterrupted run has.
// Every step can be cut off and done again: a second call keeps the same
// changes at the same ref.
func (r *Repo) KeepChanges(ctx context.Context, ref, message string) (bool, error) {
	left, err := r.Dirty(ctx)
	if err != nil || len(left) == 0 {
		return false, err
	}
	if _, err := r.Git(ctx, "add", "-A"); err != nil {
		return false, err
	}
	tree, err := r.Git(ctx, "write-tree")
	if err != nil {
		return false, err
	}
	commit, err := r.Git(ctx, append(r.identity(ctx), "commit-tree", strings.TrimSpace(tree), "-p", "HEAD", "-m", message)...)
	if err != nil {
		return false, err
	}
	if _, err := r.Git(ctx, "update-ref", ref, strings.TrimSpace(commit)); err != nil {
		return false, err
	}
	// reset --hard removes the files add -A took in, as they are not in
	// HEAD: nothing of them is left for a clean.
	if _, err := r.Git(ctx, "reset", "-q", "--hard", "HEAD"); err != nil {
		return false, err
	}
	return true, nil
}
