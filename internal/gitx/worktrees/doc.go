// Package worktrees manages hive's git worktrees. Each running plan gets
// its own worktree on its branch (gitx.PlanBranch), made by Add from a base
// ref or commit and dropped by Remove; List parses `git worktree list
// --porcelain` and Prune (run it at start) forgets worktrees whose folders
// are gone. Worktrees live outside the repository, by default under
// DefaultRoot: <user cache dir>/hive/worktrees/<repo name>-<hash of the
// repository path>, and Orphans finds the folders there whose repository
// is gone. Branch names must pass gitx.CheckBranchName and paths must be
// plain (ErrBadPath); base and path are passed after "--" or
// --end-of-options so they are never read as options. Add first clears what
// an earlier run or an earlier clone at the same path left in the way
// (pruned registrations, hive's worktrees moved from an old worktree
// folder, stale folders git no longer knows) and tells the WithNotes
// function of its context what it did; what it must not touch is refused
// with what to do (ErrInTheWay). What writes worktree metadata holds the
// repository lock (gitx.Repo.Locked), and every git command runs through
// the gitx.Repo it is given.
package worktrees
