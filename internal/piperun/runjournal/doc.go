// Package runjournal is what hive run keeps in its journal and how a run
// is read back from it: the runs of the pipeline's key (Latest, Find,
// Abandon), the events the run's machine stepped (Events, Replay, and the
// branch its spec names: RunBranch), the shell's own records beside them,
// which a replay skips (ShellRecords: the delivery, the memory's warnings,
// the context a role was given, the computed confidence, how the workflow
// was chosen, the postmortem model's paragraph), the events a run's
// machine stepped elsewhere journaled where the folder's journal lacks
// them (Record), and an answer to the open question, checked as the run
// would check it before it is journaled (Answer). It keeps no state:
// every function reads or appends the journal.Journal it is given.
package runjournal
