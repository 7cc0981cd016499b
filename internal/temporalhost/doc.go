// Package temporalhost is hive's host on Temporal, the client side: it
// dials the server, names and finds the workflows of a project's runs (a
// phase's by its folder or, when clones share its work, by the repository;
// hive run's by its folder), starts or takes up a run's workflow and
// follows it (execute-phase's phase, hive run's objective, begun in the
// folder first), answers their questions by signal, checked against the
// workflow's state, and reads that state for hive status, attach and serve.
// What the workers serve is runworker's; what the workflows decide is the
// machines', stepped in internal/temporal. The CLI parses the flags and
// prints; this package does the rest.
package temporalhost
