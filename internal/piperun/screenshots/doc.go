// Package screenshots keeps the browser validator's screenshots of a
// run: the images its report lists, saved under .hive/screenshots/ of the
// run's worktree, which goes when the run ends, are copied into the
// repository's .hive/runs/N/screenshots (Dir), where hive report finds
// them. A path outside that folder, a link, a file that is no image or
// one too large is refused: an agent's report never makes hive read or
// write elsewhere.
package screenshots
