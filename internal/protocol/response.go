package protocol

import "strings"

// Reply kinds returned by ParseResponse: the wire prefixes of hive's
// answers to an executor (seed 000's appendix).
const (
	ReplyCheckpoint = "CHECKPOINT_RESPONSE"
	ReplyDeviation  = "DEVIATION_RESPONSE"
)

// CheckpointResponse is the message that answers a CHECKPOINT.
func CheckpointResponse(answer string) string {
	return reply(ReplyCheckpoint, answer)
}

// DeviationResponse is the message that answers a DEVIATION.
func DeviationResponse(decision string) string {
	return reply(ReplyDeviation, decision)
}

// Ping asks a live agent that has printed nothing for silence whether it
// is still working.
func Ping(silence string) string {
	return "PING: hive has seen no output from you for " + silence + ". If you are still working, reply with a PROGRESS line."
}

func reply(kind, body string) string {
	return strings.TrimSpace(kind + ": " + strings.TrimSpace(body))
}

// RolloverPrefix begins the message that asks a live executor to hand over
// to a fresh session.
const RolloverPrefix = "CONTEXT_ROLLOVER:"

// Rollover asks a live executor of plan to hand over (seed 001's
// checkpoint, for one agent): why is how full its context is, or a pause.
// A half-done task is committed as WIP under its own trailer, never
// Hive-Task, so that it never counts as done; the notes come as a
// HIVE_REPORT, which hive journals for the next session.
func Rollover(plan, why string) string {
	return RolloverPrefix + " " + why + ". hive continues your plan in a fresh session; hand over now.\n" +
		"1. Do not start another task. If a task is half done, commit what you have with the message `wip(" + plan + "): {task name} (in progress)` " +
		"and the trailers `Hive-Plan: " + plan + "` and `Hive-WIP: " + plan + "/{task number}` (never a Hive-Task trailer: the task is not done).\n" +
		"2. Reply with a HIVE_REPORT block, status \"partial\": summary = the task in progress and what is left of it; " +
		"decisions = the decisions you made that the plan does not state; concerns = what the next session must know " +
		"(pitfalls, commands that work, files in a half-done state).\n" +
		"3. End your turn. Do not write PLAN COMPLETE unless every task is committed."
}
