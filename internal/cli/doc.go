// Package cli is hive's command line: one cobra command per file, each with
// an options struct and a run function that tests can call. It parses the
// flags into one request (runconfig.Run for hive run, runconfig.Phase for
// execute-phase), hands it to the local host (piperun, runner) or to
// Temporal's (temporalhost, whose workers are runworker's), and prints what
// comes back (lines, tui). It holds no scheduling, no backend policy and no
// Temporal client code.
package cli
