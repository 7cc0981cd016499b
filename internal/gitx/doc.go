// Package gitx runs the git CLI for hive: repository discovery, commit
// look-ups for spot-checks, and keeping hive's own folder out of git without
// touching the user's .gitignore. Every call is an argument list given to
// exec (never a shell string), so plan and agent content cannot be
// interpreted by a shell.
package gitx
