// Package runnertest holds the phases and repositories the tests of
// execute-phase's runner and its packages share: plans of a small library
// phase, a phase loaded and validated, the worktrees a killed run leaves,
// and a repository whose archived milestone reused a plan id. Test
// support: the hive binary never imports it.
package runnertest
