// Package shellhive says what hive makes of a .hive/ folder the shell Hive
// (the bash predecessor, github.com/ewarrin/hive-ai) left in a repository:
// for each of its files whether hive uses it, ignores it and why, or cannot
// use it and what fixes that. Memory carries the shell Hive's project
// memory (conventions, gotchas, the build and test commands) into a run's
// context. It reads files and decides nothing else.
package shellhive
