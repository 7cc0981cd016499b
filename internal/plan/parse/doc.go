// Package parse reads one planning file into hive's model. Plan reads a
// PLAN.md: its frontmatter's keys, in every spelling GSD and people use,
// into a plan.Plan with the line of each (depends_on as plan ids, a file
// named there warned of, must_haves as truths, artifacts and key links),
// and its body's <task> elements, a TDD plan's <feature> blocks or the
// "## Task N" sections of older plans into tasks. Summary reads a
// SUMMARY.md: its key files, its one-liner and its Self-Check verdict, the
// verdict even when its frontmatter cannot be read. Both are tolerant and
// never panic: what they find wrong is a Diagnostic with its file, line and
// fix next to what could be read, and only a plan whose frontmatter cannot
// be read at all is left out (nil). They read the bytes they are given and
// nothing else.
package parse
