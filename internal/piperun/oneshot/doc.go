// Package oneshot is one agent call outside a run's machine: the
// planner's before the run, an evaluator's on a role's work, the
// postmortem model's after the run. Run starts the call's agent for one
// turn in an empty folder of its own, where it can change nothing of the
// user's, and returns the HIVE_REPORT it wrote and what it spent, or why
// there is none (no answer in time, no report, a report that does not
// read). Meter prices an agent session's usage as it comes, hive's price
// for a model it knows, else the CLI's own figure; the run's role agents
// are metered with it too.
package oneshot
