// Package integrate is the engine's record of plans being integrated in
// worktree mode: a plan that passes its spot-checks is merged into the
// integration branch, a conflict goes to resolver agents (role comb) and
// then to a human, and the post-merge gate's failures to fix agents and
// then to a human. It reads the merges' and gates' results and says what
// follows; the engine starts the agents and asks the humans.
package integrate
