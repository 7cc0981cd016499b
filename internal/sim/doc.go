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
// selfcheck-fail, fail) through HIVE_SIM_FAULTS or the JSON file named by
// HIVE_SIM_FILE, so engine and runner tests can make any plan misbehave in a
// real child process.
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
