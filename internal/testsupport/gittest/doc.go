// Package gittest makes the git repositories hive's tests work in: a
// repository with given files and one commit, or an empty one opened as a
// gitx.Repo, git run with a test's failure on error, and a home of the
// test's own so that git and hive never touch the developer's. Test
// support: the hive binary never imports it.
package gittest
