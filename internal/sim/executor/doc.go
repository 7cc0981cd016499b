// Package executor is the sim playing GSD's executor: it really carries
// out a GSD plan in the git repository that is its working directory.
//
// It makes one commit per task, carrying Hive-Plan/Hive-Task trailers and
// naming its paths explicitly, then a SUMMARY.md and the seed's PLAN
// COMPLETE message. It raises checkpoints in both the team-mode message
// form and the standalone CHECKPOINT REACHED form, and it accepts
// continuation prompts. Restarted agents find their earlier commits by
// trailer and never do a task twice. The plan's faults (package faults)
// make it crash, hang, fail, hit the usage limit or go slow at a task, or
// lose its SUMMARY. After the plan's turn the session stays live, and each
// later message gets a short answer (Answer).
//
// Context rollover: a live session's message that begins
// "CONTEXT_ROLLOVER:" (RolloverPrefix) makes the sim hand its plan over, as
// hive asks of a real agent. It is seen between tasks, while the sim spends
// HIVE_SIM_DELAY on a task (a message sent mid-turn is folded into the
// running turn, as with Claude Code), at a team checkpoint and when idle.
// A task in progress is committed as "wip(PLAN): NAME (in progress)" with
// trailers Hive-Plan and Hive-WIP (never Hive-Task, so the next agent does
// the task again); then a HIVE_REPORT with status partial says which task
// is next and what is committed, with a decision and concerns, and the turn
// ends. The sim starts no task after that, and exits 0 when its input
// closes. After PLAN COMPLETE the request gets a report with status
// complete. The ignore-rollover fault makes it pay such messages no heed.
//
// As an executor of hive run's implementers' phase (HIVE_PIPELINE_ATTEMPT),
// the implementer's challenge fault makes it challenge the architect's plan.
package executor
