// Package frontmatter reads the YAML frontmatter of a planning file as
// people and LLMs write it. Split separates it from the body (blank lines
// or a BOM before the opening ---, CRLF, a frontmatter never closed that
// ends where the body's first tag begins), Fenced takes a ```yaml block of a
// plan's keys instead, and Parse reads it with strict YAML or, where strict
// YAML refuses what GSD's own line-based reader runs every day, line by line
// as GSD does, with a note; a frontmatter nobody can read is an error naming
// the file line and the fix. A Document's readers (Keys, List, Texts,
// Value, ...) give every value with its file line, within a budget of YAML
// nodes that aliases cannot blow up, and never panic. What a key means is
// for the reader of a plan or a SUMMARY to say (parse). It reads only the
// bytes it is given.
package frontmatter
