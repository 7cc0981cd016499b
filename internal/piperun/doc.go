// Package piperun is the shell of `hive run "objective"`: it hosts the
// pipeline machine in the journal-first loop both machines share (package
// journalfirst: every event journaled before the machine steps it), and
// carries out its commands. Each run works on a branch of its own (hive/WORKFLOW/SLUG,
// recorded in its spec; hive/run/N for older runs) in a worktree of its
// own, so the user's tree and branch are untouched until the run has
// finished; then its work is delivered (package delivery): merged into
// the user's branch when that touches nothing uncommitted, pushed (and a
// pull request opened with gh) when asked, or left on the branch with the
// commands to take it. Role agents are started through the agent
// launchers with the prompts of package roles and the context package
// rolecontext curates; the architect's plans run as a phase through the
// runner (package phaserun); the lint, the tests and the build are
// package checks's, the evaluations and computed confidence package
// evaluation's. Run is the local journal-first loop; Begin and Worker are
// a distributed backend's entry points, whose machine runs elsewhere.
// What the run journals is read back with package runjournal, told by
// package runreport, and left for the next run by package postmortem.
package piperun
