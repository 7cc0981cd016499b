// Package plan reads a repository's GSD-style .planning/ folder: phase folders,
// NN-MM-PLAN.md files (YAML frontmatter plus an XML-like task body, or the older
// "## Task N" markdown form), NN-MM-SUMMARY.md files, and it validates a phase as a
// dependency graph and computes its waves. Plans are written by people and LLMs, so
// every reader here is tolerant: it never panics and reports what it found as
// Diagnostics (file, line, fix) instead of failing. The package is a leaf that the
// pure engine may depend on, so it imports only the standard library and
// gopkg.in/yaml.v3, does no I/O beyond reading files under .planning/, never writes,
// never executes anything, and never trusts a path taken from a plan (see SafeRelPath).
package plan
