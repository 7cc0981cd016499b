// Package gitx runs the git CLI for hive: repository discovery, commit
// look-ups for spot-checks, and keeping hive's own folder out of git without
// touching the user's .gitignore. Every call is an argument list given to
// exec (never a shell string), so plan and agent content cannot be
// interpreted by a shell. Hive's worktrees are the package worktrees', and
// the lock files a killed git leaves behind are stalelocks': both run git
// through a Repo.
//
// # Branches and the repository lock
//
// Each running plan works on branch hive/<phase>/<plan> (PlanBranch).
// Branch names are checked with `git check-ref-format --branch`
// (CheckBranchName, ErrBadBranch), and refs and paths are passed after "--"
// or --end-of-options so they are never read as options.
//
// Git commands that write repository metadata run inside Repo.Locked, which
// holds a per-repository lock in the process and an exclusive flock on
// <common git dir>/hive.lock across processes (unix; elsewhere only the
// in-process lock), so parallel plans never fail on git's own .lock files.
// Waiting for the lock ends when the context does. The lock is not
// re-entrant: code run by Locked must not call Locked or the functions that
// take it on the same repository. Read-only commands do not take it.
package gitx
