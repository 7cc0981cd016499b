// Package github is hive's side of GitHub: it runs the gh CLI (never a
// shell, never a prompt) to read a repository's issues, the objectives of
// runs started from them, and says how a pull request closes one. gh does
// the talking and the logging in; tests run the real gh against
// internal/testsupport/fakegithub.
package github
