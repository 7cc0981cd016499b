// Package session is one sim agent process: its live conversation, the
// repository it works in, and how it ends.
//
// Run reads stream-json user messages from stdin and hands them to the
// conversation one at a time (Next); a live session takes the next user
// message until stdin closes. A message that arrives while the agent works
// waits for the turn to end, unless the agent takes it mid-turn (Take,
// Spend), as Claude Code folds a message sent mid-turn into the running
// turn. The process exits with the code the agent asks for (Exit), else,
// when stdin closes, with the one set for that (SetEOFExit: 1 unless the
// agent's work is done); a hung agent (Hang) ignores stdin until it is
// killed. Every git command and file write holds the session's mutex
// (Mutate), so that once stdin closed the one in flight finishes and no
// other starts: a stopped sim never leaves half a commit behind.
package session
