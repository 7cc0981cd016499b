// Package rollover decides when a live agent session hands over to a
// fresh one before its context fills (seed 001), before the CLI compacts
// it on its own and the agent forgets its plan, its answers and its
// decisions: it follows each session's context occupancy, asks a session
// past its handoff point for its work in progress and notes, and says why
// a session ended. The engine starts the fresh session.
package rollover
