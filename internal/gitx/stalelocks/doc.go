// Package stalelocks finds and removes the lock files that a git killed
// mid-write (with hive, by a crash, by kill -9) leaves behind, and past
// which git refuses to work ("Unable to create '…/index.lock': File
// exists"). Those in what hive owns, the index and HEAD locks of the
// worktrees in a phase's worktree folder and the locks of its branches, go
// (Clear); the user's main worktree's are the user's, cleared only by a
// worker that retries an agent killed there (ClearTree); List names them
// all and removes none (hive doctor). A lock some process still has open
// is live and stays: where no process table can be read (not Linux), a
// lock counts as left behind once it is ten minutes old.
package stalelocks
