// Package postmortem is what a finished hive run leaves for the runs
// after it (seed 003 §2, §6.2): its record in the project's memory
// (Remember, read back from the journal as memory.FromJournal reads it),
// CLAUDE.md's Hive Learnings brought up to date from that memory on the
// run's branch, as hive's own commit, before the work is delivered
// (Learn), the paragraph a cheap model writes of the run from the facts
// hive's own paragraph tells (Tell, journaled before the run is marked
// finished; runreport.Postmortem is hive's paragraph), and the run's
// postmortem kept in .hive/runs/N/postmortem.md (Write).
package postmortem
