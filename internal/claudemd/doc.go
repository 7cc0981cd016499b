// Package claudemd keeps hive's section of a project's CLAUDE.md: the
// "Hive Learnings" between hive's two marker lines, which every Claude
// Code session reads. It owns those lines and what is between them, and
// not one byte outside: a CLAUDE.md without the markers gets the section
// appended; one whose markers are broken is left alone, with the reason.
package claudemd
