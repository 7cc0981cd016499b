// Package lines is how a run reads as plain text, for a terminal without
// the live screen, a log or a script: the lines execute-phase prints for a
// phase run (and its JSON events), the lines hive run prints for a run of
// roles, the same lines replayed from a journal for hive log, an agent's
// log rendered for hive attach and serve, findings with the code they
// name, and the prompt that reads answers typed at the terminal. It
// prints what the machines' events and commands say; it decides nothing.
package lines
