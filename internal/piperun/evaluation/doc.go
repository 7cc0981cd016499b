// Package evaluation judges the work of a run's roles (seed 003 §3.2,
// §3.3). Evaluate judges one attempt of a role: hive's own mechanical
// checks for the role (the architect's plans linted and their paths
// found, an implementer's build, tests and coverage of the planned files,
// a tester's run read, a reviewer's findings at real lines), run in the
// run's worktree or read from what the run journaled, and three
// evaluators, one per aspect (completeness, coherence, risk), asked side
// by side in one-shot calls with the same account of the work; the
// machine routes on what they say. Scores is each role's computed
// confidence from the same checks as the run ends, which the run
// journals and the project's memory keeps.
package evaluation
