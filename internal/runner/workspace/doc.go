// Package workspace is the git work of a phase run: the executor of the
// engine's spot-checks, commit look-ups, merges, post-merge gates and
// phase verification, and what a run's agents need of git (where each
// plan's agent works, in the shared tree or in the plan's worktree, and
// each plan's commits of the run). Merges, gates and the verification run
// on the integration branch's goroutine (package integration); a finished
// run's work is delivered to the user's branch. With a git remote
// (Remote), a worker of a distributed run brings the trees a command needs
// to what the remote has and pushes what it wrote, so that workers on
// other machines share the run's work; the run-level steps of that mode
// (PublishRun, DeliverRemote, EndRemote, ClearRemote, BringMerged,
// RemoteTree) are here too. It decides nothing: what a result means is
// the engine's.
package workspace
