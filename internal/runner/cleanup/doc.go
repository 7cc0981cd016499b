// Package cleanup is hive clean (and hive doctor's repair): it removes
// what killed runs and earlier clones of the repository left behind, the
// worktrees of every phase no live hive runs (a live run holds its
// phase's lock), git's registrations of worktrees whose folders are gone,
// the hive/ branches whose work is already on the current branch, and
// stale folders in hive's worktree folder. It touches nothing of the
// user's, keeps a branch that holds unmerged work, and says what it did
// and what it left, with why (Report).
package cleanup
