// Package checks is hive's own checks of a run's worktree, run by hive
// rather than by an agent: the architect's phase linted as plans (Lint),
// the project's tests and build, found from its files or configured
// (commands.test, commands.build), run and read into roleplan.Tests
// (RunTests, RunBuild), with why a command could not run at all when the
// worktree, a fresh checkout, lacks what git does not carry (installed
// dependencies) or the machine lacks the command's program; and what the
// run changed since its base (Changes), which routing and the computed
// confidence read. Nothing to test or to build is None, never a pass.
package checks
