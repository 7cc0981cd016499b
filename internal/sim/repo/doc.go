// Package repo is what the sim may do to the git repository it works in.
//
// Git runs git with argument lists only, never through a shell. Several
// sims share one working tree in tests, so every git command is retried on
// lock contention. Plans are untrusted: CheckPath holds every path one
// names to the repository (nothing outside it, through a symlink that
// leaves it, or into .git), and TouchFile and AddMustHaves write the files
// a task names so that they look like their kind, with one marker line per
// task, and hold what the plan's must_haves ask for.
package repo
