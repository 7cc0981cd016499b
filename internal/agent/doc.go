// Package agent starts and supervises coding-agent processes and turns their
// output into plain values: the text blocks they wrote, their turn results,
// and how they ended. Each agent runs in its own process group so that it
// can be stopped together with every child it started, and its raw output is
// kept in a log file. An agent gets only the allowed part of hive's
// environment (DefaultEnvAllow, plus the names the config lists), its log
// is masked by a redact.Redactor and capped on disk (DefaultLogLimit), and
// its stdout lines are bounded (DefaultMaxLine), so that many agents
// printing as fast as they can neither leak secrets nor exhaust memory or
// disk. A turn that ended on the provider rather than on the agent's work
// (a usage limit and when it resets, a rate limit, an overload, a refused
// login) carries a Limit. Which CLI runs, with what command line, and what
// the lines it prints say (a Dialect) is the CLI's adapter's, in package
// adapter (whose limits.go has what the pinned versions print, measured);
// this package runs any Launcher, speaks the stream-json input of a live
// session (UserMessage, PermissionResponse), and wraps a launcher with the
// config's secrets (WithSecrets). The package decides nothing: what an
// agent's text means is the protocol package's job, what to do about it the
// engine's.
package agent
