// Package integration is where a worktree run's plans meet: the phase's
// integration branch (hidden, or hive/phase-NN with branching "phase"),
// its worktree, and a worktree and branch per plan, readied by the
// worktree_setup hook (Setup). Merges run one at a time on the branch's
// own goroutine, in the order the plans completed; each is idempotent, so
// a hive killed halfway never merges a plan twice, keeps every other
// plan's SUMMARY, and carries STATE.md and ROADMAP.md as they stand after
// it. A plan that did not end complete is taken off the branch again
// (Unmerge), and a finished run's work is brought to the user's branch
// (Finish). Git is the configuration of where plans work and how their
// work is merged; CheckClean refuses a tree whose uncommitted changes the
// agents would not see.
package integration
