// Package scaffold holds the files `hive init` writes into a repository: a
// GSD .planning/ folder (config.json with every key at its default,
// PROJECT.md, ROADMAP.md, STATE.md) and a small example phase of two plans
// that the sim agent runs to completion and a real agent can carry out
// without harm (it only writes documentation). The Markdown files are
// embedded templates; config.json is rendered by internal/config itself, so
// the file always holds exactly the keys and defaults hive reads.
//
// The package writes all of its files or none, and never replaces a file
// that exists. It does not run git, agents or hive; `hive init` does that.
package scaffold
