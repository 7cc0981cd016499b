// Package gitx runs the git CLI for hive: repository discovery, commit
// look-ups for spot-checks, and keeping hive's own folder out of git without
// touching the user's .gitignore. Every call is an argument list given to
// exec (never a shell string), so plan and agent content cannot be
// interpreted by a shell.
//
// # Worktrees and the repository lock
//
// Each running plan gets its own worktree on branch hive/<phase>/<plan>
// (PlanBranch), made by AddWorktree from a base ref or commit and dropped by
// RemoveWorktree; Worktrees parses `git worktree list --porcelain` and
// PruneWorktrees (run it at start) forgets worktrees whose folders are gone.
// Worktrees live outside the repository, by default under
// DefaultWorktreeRoot: <user cache dir>/hive/worktrees/<repo name>-<hash of
// the repository path>. Branch names are checked with
// `git check-ref-format --branch` (CheckBranchName, ErrBadBranch) and paths
// must be plain (ErrBadPath); base and path are passed after "--" or
// --end-of-options so they are never read as options. AddWorktree first
// clears what an earlier run or an earlier clone at the same path left in
// the way (pruned registrations, hive's worktrees moved from an old
// worktree folder, stale folders git no longer knows) and tells the
// WithNotes function of its context what it did; what it must not touch is
// refused with what to do (ErrInTheWay).
//
// Git commands that write repository metadata run inside Repo.Locked, which
// holds a per-repository lock in the process and an exclusive flock on
// <common git dir>/hive.lock across processes (unix; elsewhere only the
// in-process lock), so parallel plans never fail on git's own .lock files.
// Waiting for the lock ends when the context does. The lock is not
// re-entrant: code run by Locked must not call Locked or the methods that
// take it on the same repository. Read-only commands do not take it.
package gitx
