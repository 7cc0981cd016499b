// Package stream is the sim's side of Claude Code's stream-json dialect.
//
// An Emitter writes a session's stdout: a system/init line per turn,
// assistant text and tool_use blocks, tool results, a result line at the
// end of every turn, and the lines of a turn the account's usage limit
// ends. ReadInput reads the user messages of a live session from stdin
// (UserText: a string or text blocks) until stdin closes.
//
// Context: by default the sim reports the plain estimate of its
// conversation (characters / 4) as input_tokens, in a 200,000-token window.
// HIVE_SIM_CONTEXT (EnvContext, or the "context" of the file named by
// HIVE_SIM_FILE) sets a curve instead (see ContextCurve): a base (the
// system prompt), tokens per API request and per task, and the window;
// every assistant line's usage then carries the session's context split
// into cache_read (what the previous request sent) and input (the rest),
// and near 92% of the window the sim compacts as Claude Code does
// (system/status "compacting", system/status compact_result "success",
// system/compact_boundary with trigger auto, pre_tokens and post_tokens,
// then the synthetic "This session is being continued …" user line), its
// context dropping to a tenth of the window.
package stream
