// Package plantest holds what the tests of the plan packages (internal/plan
// and the packages under it) share: a plan written from a few lines of
// frontmatter and a body, the files of a phase written under a repository,
// a repository whose plans name paths that leave it (HostileRepo), and the
// diagnostics listed, and their fixes checked, as the tests print them.
// Test support: the hive binary never imports it.
package plantest
