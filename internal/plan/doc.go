// Package plan is hive's model of a repository's GSD-style .planning/
// folder: a Project of phase folders, each Phase holding its NN-MM-PLAN.md
// Plans (frontmatter, tasks, must_haves) and its NN-MM-SUMMARY.md
// Summaries, and the Diagnostics (file, line, fix) that its readers report
// instead of failing, since plans are written by people and LLMs. It holds
// the rules by which the folder's names are read (phase folders, plan ids
// and the ways depends_on spells them, numeric order) and the waves a
// phase's plans run in (ComputeWaves). Reading the folder is load's, reading
// one file parse's (with frontmatter and markup under it), checking a phase
// as a graph validate's, and the paths a plan names planpath's. The package
// is a leaf that the pure engine may depend on: it imports only the
// standard library and does no I/O; the packages under it add only
// gopkg.in/yaml.v3, read nothing but files under .planning/ and what the
// repository holds at the paths plans name, never write, never execute
// anything, and never trust a path taken from a plan (see
// planpath.SafeRelPath).
package plan
