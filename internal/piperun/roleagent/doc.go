// Package roleagent is a role's agent in a hive run's worktree. Start
// starts it, through the role's launcher (or the fallback agent's) on the
// model of its rung, with the prompt the run renders for it, after what
// an earlier attempt cut off mid-turn left uncommitted is set aside at a
// ref of its own; it reads what the agent prints into the pipeline
// machine's events: its HIVE_REPORT held to the role's contract (with the
// browser validator's screenshots kept), its tool calls, its usage priced
// as it comes, a provider's usage limit, the end of its turn, its exit. A
// role agent runs unattended: a request to use a tool is refused (Refuse),
// and one silent past the stall timeout is ended (EndSilent).
package roleagent
