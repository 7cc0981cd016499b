// Package lock keeps two hive processes from driving one run: an
// exclusive lock per phase folder (Phase), and one for hive run's runs
// (Pipeline), each a file in .hive/locks/ that records its holder's pid.
// The kernel drops a lock when its process dies, so a killed hive leaves
// nothing to clean up, and a lock whose holder just died does not refuse
// the next hive. PhaseHolder and PipelineHolder tell which live process
// holds one without taking it (hive status, attach, pause, serve).
package lock
