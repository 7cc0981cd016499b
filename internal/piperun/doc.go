// Package piperun is the shell of `hive run "objective"`: it journals the
// pipeline's events before the pipeline machine steps them, and carries out
// its commands. Each run works on a branch of its own (hive/run/N) in a
// worktree of its own, so the user's tree and branch are untouched until
// the run has finished; then its work is merged into the user's branch,
// or left on the branch with instructions. Role agents are started through
// the agent launchers with the prompts of package roles; the architect's
// plans run as a phase through the runner; the tests through testrun.
package piperun
