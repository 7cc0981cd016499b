// Package exit names the exit codes of hive's commands, which scripts rely
// on, and the error that carries one out of whichever package decides it
// (the CLI, the run's configuration, the Temporal hosts) to the command's
// end, where the CLI prints its message and exits with its code.
package exit
