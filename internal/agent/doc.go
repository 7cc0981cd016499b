// Package agent starts and supervises coding-agent processes and turns their
// output into plain values: the text blocks they wrote, their turn results,
// and how they ended. Each agent runs in its own process group so that it
// can be stopped together with every child it started, and its raw output is
// kept in a log file. The package decides nothing: what an agent's text
// means is the protocol package's job, what to do about it the engine's.
package agent
