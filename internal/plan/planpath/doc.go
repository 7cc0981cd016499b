// Package planpath holds hive to the repository whenever it takes a path
// from a plan, which is untrusted input. SafeRelPath cleans a path and
// refuses one that is empty, absolute (drive letters, UNC paths and ~
// included), leaves the repository through "..", or lies inside .git in any
// letter case; ResolveInRepo also refuses, on disk, a path that goes through
// a symbolic link pointing outside the repository or into .git, so that
// writing to it cannot touch files outside the worktree; SplitKeyLinkRef
// finds the file and the symbol a must_haves key link names among the words
// people write there, so that prose, code and URL routes are never taken
// for paths. It imports only the standard library, and looks at the disk
// only to follow links.
package planpath
