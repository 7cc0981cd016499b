// Package index builds a codebase index of a git repository without a
// model: its languages (counted by file extension over git's own file
// list), a summary of its file tree, the test and build commands hive would
// run (testrun's detection, so the index and the pipeline agree), the
// frameworks its manifests name, its entry points, and two facts workflows
// branch on, whether it has a frontend and whether it has tests. The index
// is small by construction (every list is capped and says how much more
// there is), so it fits in an agent's prompt, and it is cached under the
// repository's git directory by the hash of the tree it describes, so a
// second look at the same commit costs two git commands.
package index
