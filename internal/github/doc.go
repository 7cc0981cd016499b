// Package github is hive's side of GitHub: it runs the gh CLI (never a
// shell, never a prompt) to read a repository's issues, the objectives of
// runs started from them, and says how a pull request closes one. For a
// pull request hive opened, it reads what comes back (its head commit, the
// branch's CI runs and a failed run's log, the review threads) and answers
// on a thread; Latest keeps each workflow's newest run, whose failure
// the pipeline routes only if it is of the head. gh does the talking
// and the logging in; tests run the real gh against
// internal/testsupport/fakegithub.
package github
