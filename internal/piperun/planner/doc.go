// Package planner chooses a new run's workflow before the run starts
// (seed 003 §3.1): Plan asks the planner role, a cheap model given the
// objective and hive's index of the codebase, which roles the objective
// needs, in one call (package oneshot); its answer is validated as a
// workflow, one that will not do is asked again with what is wrong, and
// after that the rules of workflows.Pick decide and say so. What it
// returns, the workflow and how it was chosen (runjournal.Planning), is
// the run's to journal.
package planner
