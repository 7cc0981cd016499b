// Package sim is the simulated coding agent behind `hive __sim`.
//
// It plays the part of Claude Code in tests and in `hive demo`: it speaks Claude
// Code's stream-json dialect on stdin/stdout (a system/init line per turn,
// assistant text blocks, a result line at the end of every turn, a live session
// that takes the next user message until stdin closes) and it really carries
// out a GSD plan in the git repository that is its working directory: one
// commit per task, carrying Hive-Plan/Hive-Task trailers, then a SUMMARY.md and
// the seed's PLAN COMPLETE message. It raises checkpoints in both the team-mode
// message form and the standalone CHECKPOINT REACHED form, and it accepts
// continuation prompts. Restarted agents find their earlier commits by trailer
// and never do a task twice.
//
// Faults can be injected per plan (crash, hang, garbage, slow, nosummary,
// selfcheck-fail, fail, ignore-rollover) through HIVE_SIM_FAULTS or the JSON
// file named by HIVE_SIM_FILE, so engine and runner tests can make any plan
// misbehave in a real child process.
//
// Context: by default the sim reports the plain estimate of its
// conversation (characters / 4) as input_tokens, in a 200,000-token window.
// HIVE_SIM_CONTEXT (or the file's "context") sets a curve instead (see
// ContextCurve): a base (the system prompt), tokens per API request and
// per task, and the window; every assistant line's usage then carries the
// session's context split into cache_read (what the previous request sent)
// and input (the rest), and near 92% of the window the sim compacts as
// Claude Code does (system/status "compacting", system/status
// compact_result "success", system/compact_boundary with trigger auto,
// pre_tokens and post_tokens, then the synthetic "This session is being
// continued …" user line), its context dropping to a tenth of the window.
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
// HIVE_SIM_MODE=instant or checkpoint (instant.go) turns the sim into a
// bench agent that does no file or git work at all, so that `hive bench`
// measures hive rather than the sim.
//
// What the sim must not do: write outside the repository or through a symlink
// that leaves it, write into .git, run a shell (git is executed with argument
// lists only), touch planning files other than its own SUMMARY.md (STATE.md and
// ROADMAP.md belong to hive), push, or use the network. Several sims share one
// working tree in tests, so every git command is retried on lock contention and
// commits name their paths explicitly.
package sim
