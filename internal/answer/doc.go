// Package answer records a human's answer to an open checkpoint in the
// journal: the one path that `hive answer` and `hive serve` (its forms, its
// JSON API and its signed links) share. It checks the answer the way the
// engine (or hive run's pipeline machine) will, journals it masked, and
// makes an answer given in two places at once count once: answers are
// serialised in the process and across processes (a lock file beside the
// journal), and a phase answer is checked again against the journal after
// it was written, so that one racing a terminal answer of the running hive
// is reported as already answered rather than as applied. A running hive
// applies a journaled answer at once, a stopped one when resumed. It never
// runs agents, prints or serves anything.
package answer
