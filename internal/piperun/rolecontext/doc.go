// Package rolecontext is what a role of hive run is told as it starts:
// its prompt (package roles: the repository's, the user's or hive's own,
// or a framework's variant of it) rendered with the run's objective, the
// roles before it, the project's test command and, for the documenter,
// what the run proved; the warnings the project's memory holds for the
// role and the files at hand (seed 003 §2.2); and the context hive
// curates for it (seed 003 §2.3: the codebase's index, earlier runs'
// decisions and CLAUDE.md for the architect, the files the objective
// names and a test to follow for an implementer, the diff and the notes
// before it for a tester or a reviewer), each part and the whole bounded.
// The phase's executors get the same, per plan (PlanBrief). What each
// was given is journaled (runjournal.Warned, runjournal.ContextRecord), so
// that a run can be explained from its journal.
package rolecontext
