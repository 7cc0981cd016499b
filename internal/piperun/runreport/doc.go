// Package runreport is the account of one hive run, read from its journal
// alone (and its commits from git): Build replays the run and gathers
// what hive report prints (each role's state, attempts, time and spend,
// the challenges, decisions, findings and fix loops, the tests, the
// delivery, the computed confidence, the screenshots kept), the Timeline
// of where its wall time went and how much of it was hive's own, the run
// told in one paragraph (Postmortem, unless the postmortem model's was
// journaled), and the report as a pull request's description (PRBody).
// It only reads: nothing here writes the journal, git or a file.
package runreport
