// Package adapter is the agent CLIs hive runs, each a Launcher of package
// agent: Claude Code (Claude: stream-json, a live session in team mode or
// one shot), codex (Codex: `codex exec --json`), aider and any other
// command (Command, Aider: the exec agent), and the sim (Sim: hive's own
// simulated agent, run as `hive __sim`, which speaks Claude Code's
// dialect). For each it builds the command line and the environment, finds
// the program (PATH, a configured path, or HIVE_TOOLS), and reads what the
// CLI prints into agent.Outputs: text blocks, tool calls, spend request by
// request (StreamJSON's turnMeter), a turn's result, and the provider's
// error that ended a turn as an agent.Limit, from what the pinned versions
// print (Claude Code 2.1.330, codex 0.169.0), measured against the fake
// model servers of internal/testsupport. Preflight checks before a run
// that a launcher's program is installed and, for Claude Code and codex,
// logged in or given a key, and says how to fix it when not. Starting and
// supervising the processes is package agent's: an adapter hands agent.Start
// its argv and its Dialect.
package adapter
