// Package delivery is what becomes of a hive run's work in the user's
// repository. The run works on a branch of its own, named as it starts
// (NewBranch: hive/WORKFLOW/SLUG), in a worktree of its own. Once it has
// finished, the branch is readied (the architect's plans taken off it and
// kept in .hive/runs/N/phase: KeepPlans; what the roles left uncommitted
// set aside at a ref: KeepLeftovers), then handed over (HandOver): merged
// into the user's branch when that touches nothing uncommitted, pushed to
// origin and a pull request opened with gh when asked, or left on the
// branch with the commands to take it; the worktree goes. For a followed
// pull request (hive run --follow) it opens the pull request, reads it,
// its CI runs and review threads back from GitHub, and pushes the fixes
// and their replies (OpenPullRequest, WatchPullRequest, PushFix): the
// pipeline machine decides what follows. What became of the work is the
// run's to journal (runjournal.Delivery).
package delivery
